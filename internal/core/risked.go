package core

import (
	"time"
)

// riskedWork is the work preempting t at now would throw away, as the
// victim search in progress sees it, counted at t's weight (weight.go): the
// work since its last checkpoint, as lostWork's, in every decision (victim
// order, cheapness and the payback price, rule 10); the work since t
// started, whatever it checkpointed, only in blindChoice's search, which
// takes the victims of a preemption already decided in Kueue's order
// (victimOrder: MostRecentlyStarted), an order that knows nothing of
// checkpoints. What a preemption reports as lost is always lostWork, the
// work really lost.
func (s *Scheduler) riskedWork(t *task, now time.Time) float64 {
	since := t.startedAt
	if !s.cc.blind && t.checkpointAt.After(since) {
		since = t.checkpointAt // lostWork's span
	}
	el := max(now.Sub(since).Seconds(), 0)
	return s.weight(t) * (el + float64(*s.policy.RestartCostSeconds)) // weight.go
}
