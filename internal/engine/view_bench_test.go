package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/model"
)

// What publishing a View costs, with 100,000 live (pending) tasks on 1,000
// nodes. BenchmarkPublishStep is a step that wrote k task records (the
// cluster part shared), or one that also changed the cluster (cluster=1:
// nodes, usage and teams read again). BenchmarkPublishAll builds a View
// from the whole state, as recovery and a rollback do, and
// BenchmarkCopyRecordsMap only copies the records map: the cost a full copy
// per step would have at the least. Run:
//
//	go test ./internal/engine -run '^$' -bench 'Publish' -benchmem
//
// docs/BENCHMARKS.md has the figures.
func BenchmarkPublishStep(b *testing.B) {
	e := benchEngine(b, 100_000, 1_000)
	for _, bc := range []struct{ k, cluster int }{{1, 0}, {100, 0}, {1000, 0}, {1, 1}} {
		b.Run(fmt.Sprintf("records=%d/cluster=%d", bc.k, bc.cluster), func(b *testing.B) {
			// Batches of k record writes over a rotating window of tasks,
			// made before timing (the step's persist makes these copies).
			names := make([]string, 0, len(e.records))
			for name := range e.records {
				names = append(names, name)
			}
			batches := make([][]model.Write, 64)
			for i := range batches {
				for j := range bc.k {
					cp := *e.records[names[(i*bc.k+j)%len(names)]]
					cp.Message = fmt.Sprint("step ", i)
					batches[i] = append(batches[i], model.Write{UpdateTask: &cp})
				}
				if bc.cluster > 0 {
					batches[i] = append(batches[i], model.Write{Cluster: &e.cluster})
				}
			}
			i := 0
			for b.Loop() {
				e.publishStep(batches[i%len(batches)])
				i++
			}
		})
	}
}

func BenchmarkPublishAll(b *testing.B) {
	e := benchEngine(b, 100_000, 1_000)
	for b.Loop() {
		e.publishAll()
	}
}

// BenchmarkCopyRecordsMap is the floor of any copy per step: a shallow
// copy of the live records map (pointers only, no record copied).
func BenchmarkCopyRecordsMap(b *testing.B) {
	e := benchEngine(b, 100_000, 1_000)
	for b.Loop() {
		m := make(map[string]*model.TaskRecord, len(e.records))
		for k, v := range e.records {
			m[k] = v
		}
	}
}

// benchEngine is an engine's state (no loop) with n pending tasks of one
// team on nodes cordoned nodes (so that all wait), after one cycle.
func benchEngine(b *testing.B, n, nodes int) *Engine {
	b.Helper()
	count := int64(nodes)
	c := model.Cluster{Name: "bench",
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: "ml.p5.48xlarge", Count: nodes}},
		Teams:      []model.Team{{Name: "a", Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: &count}}}}}
	if err := c.Validate(); err != nil {
		b.Fatal(err)
	}
	sched, err := core.New(c, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, nd := range sched.Nodes() {
		if err := sched.Cordon(nd.Spec.Name, true); err != nil {
			b.Fatal(err)
		}
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := &Engine{sched: sched, cluster: c, records: make(map[string]*model.TaskRecord, n)}
	for i := range n {
		spec := model.TaskSpec{Name: fmt.Sprintf("task-%06d", i), Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 1,
			Command: []string{"true"}}
		if err := sched.Submit(spec, now); err != nil {
			b.Fatal(err)
		}
		info, _ := sched.Task(spec.Name)
		e.records[spec.Name] = &model.TaskRecord{Name: spec.Name, Team: "a", Seq: int64(i + 1), Spec: info.Spec,
			State: model.StatePending, SubmittedAt: now}
	}
	e.waiting, e.waitFresh = sched.Schedule(now).Waiting, true
	if len(e.waiting) != n {
		b.Fatalf("%d waiting, want %d", len(e.waiting), n)
	}
	e.publishAll()
	return e
}
