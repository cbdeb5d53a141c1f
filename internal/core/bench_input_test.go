package core

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// One-input benchmarks: the cost of the cycle that follows a single input
// (a submission, a completion, a node failure) once the state has settled,
// incremental and full rescan side by side in the same run.
//
// Setups (10,000 eight-GPU nodes, 200 teams of 50-node quotas, 100,000 tasks
// submitted, the tasks of BenchmarkAdmitAll):
//   - one-type: all nodes are ml.p5.48xlarge, as in BenchmarkAdmitAll.
//   - eight-types: 1,250 nodes of each of eight 8-GPU instance types; team k
//     has its quota on type k mod 8 and submits there.
//
// Incremental cycles re-evaluate the instance type an input touched; after a
// submission into a settled type, only the new task (a probe, blocked.go);
// after a completion or a node failure, the type's walk stops once the rest
// of its queue can change nothing (stop.go). They build the waiting list on
// demand (waiting.go), not in the cycle. tried/op, the pending tasks the
// timed cycle tried, measures the work without the noise of a shared
// machine. Only the timed cycle runs in the mode measured: both modes reach
// the same states, and settling them by full rescans takes minutes a cycle.

var benchTypes = []string{"ml.p5.48xlarge", "ml.p5e.48xlarge", "ml.p5en.48xlarge", "ml.p6-b200.48xlarge",
	"ml.p4d.24xlarge", "ml.p4de.24xlarge", "ml.g5.48xlarge", "ml.g6.48xlarge"}

func multiTypeCluster(nodes, teams, types int) model.Cluster {
	var c model.Cluster
	for i := 0; i < types; i++ {
		c.NodeGroups = append(c.NodeGroups, model.NodeGroup{Name: fmt.Sprintf("g%d", i), InstanceType: benchTypes[i], Count: nodes / types})
	}
	per := int64(nodes / teams)
	for k := 0; k < teams; k++ {
		c.Teams = append(c.Teams, model.Team{Name: fmt.Sprintf("team-%03d", k),
			Quotas: []model.Quota{{InstanceType: benchTypes[k%types], Count: &per}}})
	}
	return c
}

// settledInputBench returns a settled scheduler with benchTasks submitted on
// types instance types (1 = the one-type setup).
// types = -1: the one-type setup, aged (agedBench); the time it was aged
// to is returned (epoch otherwise).
func settledInputBench(b *testing.B, types int, full bool) (*Scheduler, *rand.Rand, time.Time) {
	aged := types < 0
	if aged {
		types = 1
	}
	s, err := New(multiTypeCluster(benchNodes, benchTeams, types), 1)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	for k := 0; k < benchTasks; k++ {
		spec := benchTask(r, k, benchTeams)
		spec.InstanceType = benchTypes[s.teamIdx[spec.Team]%types]
		if err := s.Submit(spec, epoch); err != nil {
			b.Fatal(err)
		}
	}
	settle(s, epoch)
	now := epoch
	if aged {
		now = agedBench(s, r)
	}
	timedMode(s, full)
	return s, r, now
}

// settle runs cycles until one changes nothing, incrementally (the full
// rescan reaches the same state, as the differential test checks, but takes
// minutes a cycle here), and leaves s in the mode it found.
func settle(s *Scheduler, now time.Time) {
	full, lazy := s.fullRescan, s.lazyWaiting
	timedMode(s, false)
	for s.Schedule(now); s.Dirty(); {
		s.Schedule(now)
	}
	s.fullRescan, s.lazyWaiting = full, lazy
}

// timedMode sets the mode of the timed cycle: incremental with the waiting
// list on demand (as the engine and the simulator run it), or the full
// rescan listing every waiting task in each decision (the reference).
func timedMode(s *Scheduler, full bool) {
	s.SetFullRescan(full)
	s.SetLazyWaiting(!full)
}

func runningTasks(s *Scheduler) []string {
	var out []string
	for _, t := range s.sortedTasks() {
		if t.state == running {
			out = append(out, t.spec.Name)
		}
	}
	return out
}

func BenchmarkOneInput(b *testing.B) {
	for _, types := range []int{1, 8} {
		for _, mode := range []string{"incremental", "full"} {
			name := fmt.Sprintf("types=%d/%s", types, mode)
			b.Run(name+"/submit", func(b *testing.B) { benchSubmit(b, types, mode == "full") })
			b.Run(name+"/complete", func(b *testing.B) { benchComplete(b, types, mode == "full") })
			b.Run(name+"/nodefail", func(b *testing.B) { benchNodeFail(b, types, mode == "full") })
		}
	}
	// The aged setup: the one-type state after four hours of churn, so
	// running tasks have varied starts and checkpoints (agedBench).
	for _, mode := range []string{"incremental", "full"} {
		name := "types=1-aged/" + mode
		b.Run(name+"/complete", func(b *testing.B) { benchComplete(b, -1, mode == "full") })
		b.Run(name+"/nodefail", func(b *testing.B) { benchNodeFail(b, -1, mode == "full") })
	}
}

// agedBench ages a settled one-type state: for four hours of virtual time,
// every 144 seconds a random running task completes and the cycles settle
// (what its room lets start starts then), and every twelve minutes the
// running tasks of a random quarter of the teams checkpoint. Running tasks
// then have varied starts and checkpoints: some victims are cheap, most are
// not, and the queue has waited past its starvation bound and paid its
// restarts. It returns the time the state was aged to.
func agedBench(s *Scheduler, r *rand.Rand) time.Time {
	now, ty := epoch, 0
	for k, it := range s.types {
		if len(it.nodes) > 0 {
			ty = k
		}
	}
	for step := 1; step <= 100; step++ {
		now = now.Add(144 * time.Second)
		for {
			tm := s.teams[r.Intn(len(s.teams))]
			if run := tm.run[ty]; len(run) > 0 {
				if err := s.Complete(run[r.Intn(len(run))].spec.Name); err != nil {
					panic(err)
				}
				break
			}
		}
		if step%5 == 0 {
			for _, tm := range s.teams {
				if r.Intn(4) == 0 {
					for _, t := range tm.run[ty] {
						if err := s.Checkpoint(t.spec.Name, now); err != nil {
							panic(err)
						}
					}
				}
			}
		}
		settle(s, now)
	}
	return now
}

// benchSubmit: the cycle after one more submission (a 1-GPU task that waits).
func benchSubmit(b *testing.B, types int, full bool) {
	s, r, at := settledInputBench(b, types, full)
	now := at.Add(time.Second)
	var work uint64
	var cpu time.Duration
	defer func() {
		b.ReportMetric(float64(work)/float64(b.N), "tried/op")
		b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		spec := benchTask(r, benchTasks+i, benchTeams)
		spec.InstanceType = benchTypes[s.teamIdx[spec.Team]%max(types, 1)]
		if err := s.Submit(spec, now); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		tried := s.tried
		cpu += timedCycle(s, now)
		b.StopTimer()
		work += s.tried - tried
		settle(s, now)
		b.StartTimer()
	}
}

// benchComplete: the cycle after one running task completes (it admits what
// the freed room lets start).
func benchComplete(b *testing.B, types int, full bool) {
	s, r, at := settledInputBench(b, types, full)
	now := at.Add(time.Second)
	var work uint64
	var cpu time.Duration
	defer func() {
		b.ReportMetric(float64(work)/float64(b.N), "tried/op")
		b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		run := runningTasks(s)
		if err := s.Complete(run[r.Intn(len(run))]); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		tried := s.tried
		cpu += timedCycle(s, now)
		b.StopTimer()
		work += s.tried - tried
		settle(s, now)
		b.StartTimer()
	}
}

// benchNodeFail: the cycle after a busy node fails (its tasks are requeued
// and reported); the node returns outside the timer.
func benchNodeFail(b *testing.B, types int, full bool) {
	s, r, at := settledInputBench(b, types, full)
	now := at.Add(time.Second)
	var work uint64
	var cpu time.Duration
	defer func() {
		b.ReportMetric(float64(work)/float64(b.N), "tried/op")
		b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		n := s.nodes[r.Intn(len(s.nodes))].spec.Name
		if err := s.SetNodeHealth(n, false, now); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		tried := s.tried
		cpu += timedCycle(s, now)
		b.StopTimer()
		work += s.tried - tried
		if err := s.SetNodeHealth(n, true, now); err != nil {
			b.Fatal(err)
		}
		settle(s, now)
		b.StartTimer()
	}
}

// timedCycle runs the timed cycle under the profiler label cycle=timed, so
// that a profile of a one-input benchmark can leave out the setup and the
// settling cycles (go tool pprof -tagfocus cycle=timed), and returns the
// thread CPU time it took (threadCPU: what a shared machine's load leaves
// out of the wall time).
func timedCycle(s *Scheduler, now time.Time) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	pprof.Do(context.Background(), pprof.Labels("cycle", "timed"), func(context.Context) { s.Schedule(now) })
	return threadCPU() - start
}
