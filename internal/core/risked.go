package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// riskedWork is the work preempting t at now would throw away, as the
// policy's victim order sees it, counted at t's weight (weight.go): the
// work since its last checkpoint, as lostWork's, under LeastLostWork (the
// default, checkpoint-aware); under MostRecentlyStarted (Kueue's order, kept for
// comparisons) the work since t started, whatever it checkpointed, since
// that order knows nothing of checkpoints. Victim order, cheapness and the
// payback price (rule 10) read it; what a preemption reports as lost is
// always lostWork, the work really lost.
//
// Without this the comparison was not one of victim choice: a
// MostRecentlyStarted run still took only victims just past a checkpoint
// (rule 10's cheap victims are checkpoint-aware), so both orders lost
// about the same work.
func (s *Scheduler) riskedWork(t *task, now time.Time) float64 {
	since := t.startedAt
	if s.policy.VictimOrder != model.MostRecentlyStarted && t.checkpointAt.After(since) {
		since = t.checkpointAt // lostWork's span
	}
	el := max(now.Sub(since).Seconds(), 0)
	return s.weight(t) * (el + float64(*s.policy.RestartCostSeconds)) // weight.go
}
