package core

import (
	"fmt"
	"math/rand"
	"runtime"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Benchmark setups follow the scheduling-core issue: 10,000 eight-GPU nodes,
// 200 teams with equal quotas (50 nodes each), 100,000 pending tasks of 1 to
// 64 GPUs. Task sizes: half are 1-8 GPUs on one node (uniform), 30% are
// 2-node gangs (16 GPUs), 15% 4-node (32 GPUs), 5% 8-node (64 GPUs).

const (
	benchNodes = 10000
	benchTeams = 200
	benchTasks = 100000
	benchType  = "ml.p5.48xlarge"
)

func benchCluster(nodes, teams int) model.Cluster {
	c := model.Cluster{NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: benchType, Count: nodes}}}
	per := int64(nodes / teams)
	for k := 0; k < teams; k++ {
		c.Teams = append(c.Teams, model.Team{Name: fmt.Sprintf("team-%03d", k),
			Quotas: []model.Quota{{InstanceType: benchType, Count: &per}}})
	}
	return c
}

func benchTask(r *rand.Rand, k, teams int) model.TaskSpec {
	s := model.TaskSpec{Name: fmt.Sprintf("task-%06d", k), Team: fmt.Sprintf("team-%03d", r.Intn(teams)), InstanceType: benchType}
	switch x := r.Intn(100); {
	case x < 50:
		s.PerNode.GPUs = int64(1 + r.Intn(8))
	case x < 80:
		s.Nodes = 2
	case x < 95:
		s.Nodes = 4
	default:
		s.Nodes = 8
	}
	return s
}

// loaded returns a scheduler with the full benchmark load submitted.
func loaded(b *testing.B) *Scheduler {
	s, err := New(benchCluster(benchNodes, benchTeams), 1)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	for k := 0; k < benchTasks; k++ {
		if err := s.Submit(benchTask(r, k, benchTeams), epoch); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkAdmitAll (a): one cycle on the empty cluster admits everything
// that fits and records why the rest wait. Reports admissions per second.
func BenchmarkAdmitAll(b *testing.B) {
	var admitted int
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := loaded(b)
		runtime.GC()
		b.StartTimer()
		start := time.Now()
		d := s.Schedule(epoch)
		elapsed += time.Since(start)
		admitted += len(d.Admissions)
		if len(d.Waiting)+len(d.Admissions) != benchTasks {
			b.Fatalf("%d admitted + %d waiting != %d", len(d.Admissions), len(d.Waiting), benchTasks)
		}
	}
	b.ReportMetric(float64(admitted)/float64(b.N), "admitted/cycle")
	b.ReportMetric(float64(admitted)/elapsed.Seconds(), "admissions/s")
}

// BenchmarkUnchangedCycle (b): a cycle with 100,000 pending tasks when
// nothing changed since the last one.
func BenchmarkUnchangedCycle(b *testing.B) {
	s := loaded(b)
	s.Schedule(epoch)
	for s.dirty {
		s.Schedule(epoch)
	}
	now := epoch.Add(time.Second)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := s.Schedule(now)
		if len(d.Admissions) != 0 || len(d.Waiting) == 0 {
			b.Fatal("an unchanged cycle changed something")
		}
	}
}

// BenchmarkFullRescan is (b) without the fast path: the cost of a full cycle
// over 100,000 pending tasks that admits nothing, for comparison.
func BenchmarkFullRescan(b *testing.B) {
	s := loaded(b)
	s.Schedule(epoch)
	for s.dirty {
		s.Schedule(epoch)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.touch()
		s.Schedule(epoch)
	}
}

// reclaimSetup: 1,250 nodes; team "owner" (quota 1,000 nodes) is idle and
// team "borrower" (quota 250 nodes, borrow limit 500%) runs 5,000 two-GPU
// tasks on all 10,000 GPUs, 8,000 of them borrowed, with checkpoints at
// varied times. Then "owner" submits a 4-node gang within its quota.
func reclaimSetup(b *testing.B) *Scheduler {
	owner, borrower := int64(1000), int64(250)
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: benchType, Count: 1250}},
		Teams: []model.Team{
			{Name: "owner", Quotas: []model.Quota{{InstanceType: benchType, Count: &owner}}},
			{Name: "borrower", BorrowLimitPercent: ip(500), Quotas: []model.Quota{{InstanceType: benchType, Count: &borrower}}},
		},
	}
	s, err := New(c, 1)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(2))
	for k := 0; k < 5000; k++ {
		_ = s.Submit(model.TaskSpec{Name: fmt.Sprintf("b%d", k), Team: "borrower", InstanceType: benchType,
			PerNode: model.Request{GPUs: 2}}, epoch)
	}
	if d := s.Schedule(epoch); len(d.Admissions) != 5000 {
		b.Fatalf("setup admitted %d of 5000", len(d.Admissions))
	}
	for k := 0; k < 5000; k++ {
		_ = s.Checkpoint(fmt.Sprintf("b%d", k), epoch.Add(time.Duration(r.Intn(3600))*time.Second))
	}
	_ = s.Submit(model.TaskSpec{Name: "gang", Team: "owner", InstanceType: benchType, Nodes: 4}, epoch.Add(time.Hour))
	return s
}

// BenchmarkReclaim (c): one cycle in which a 4-node gang reclaims whole
// nodes, choosing victims among 5,000 running borrowed tasks.
func BenchmarkReclaim(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := reclaimSetup(b)
		b.StartTimer()
		d := s.Schedule(epoch.Add(time.Hour))
		if len(d.Admissions) != 1 || len(d.Preemptions) == 0 {
			b.Fatalf("reclaim: %d admissions, %d preemptions", len(d.Admissions), len(d.Preemptions))
		}
	}
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkMemory (d): the live heap of (a)'s state, per node (cluster and
// teams only) and per pending task (after submitting 100,000).
func BenchmarkMemory(b *testing.B) {
	for i := 0; i < b.N; i++ {
		base := liveHeap()
		s, err := New(benchCluster(benchNodes, benchTeams), 1)
		if err != nil {
			b.Fatal(err)
		}
		withNodes := liveHeap()
		r := rand.New(rand.NewSource(1))
		for k := 0; k < benchTasks; k++ {
			_ = s.Submit(benchTask(r, k, benchTeams), epoch)
		}
		s.Schedule(epoch)
		withTasks := liveHeap()
		b.ReportMetric(float64(withNodes-base)/benchNodes, "B/node")
		b.ReportMetric(float64(withTasks-withNodes)/benchTasks, "B/task")
		runtime.KeepAlive(s)
	}
}
