package core

import (
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// BenchmarkWaitingList: building the waiting list (Waiting, as the engine
// does on the first read after a cycle, less the deferred tries it renders
// first) of the benchmark load after its first cycle: about 98,000 pending
// tasks, most of them refused by quota.
// A NoIdleCompute gang's listed reason counts the nodes that can be
// borrowed (waitshown.go); the metric gangs is how many such tasks the
// list holds.
func BenchmarkWaitingList(b *testing.B) {
	s := loaded(b)
	s.Schedule(epoch)
	gangs := 0
	for _, w := range s.Waiting() {
		if t := s.tasks[w.Task]; w.Reason.Code == model.NoIdleCompute && t.spec.Nodes > 1 {
			gangs++
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.collectWaiting() // the list itself (Waiting renders deferred tries first, once a cycle)
	}
	b.ReportMetric(float64(gangs), "gangs")
}
