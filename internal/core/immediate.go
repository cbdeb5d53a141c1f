package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// priorityVictim reports whether v, a lower-priority task of t's own team,
// may be preempted by t for priority (rule 3). Under preemption Immediate
// (rule 10) a task that has already lost its work to priority once
// (v.priorityLost > 0; a requeue after a node failure or a server restart
// does not count) is spared until t has waited the policy's starvation
// bound, counted from t.pendingSince (when t last entered the queue: the
// clock of a starving task's hold, cycle.go), unless v started while a
// higher-priority task of its team waited for the same instance type
// (v.backfill): such a task runs at that task's pleasure. So a spared task
// is taken again only by a task that has waited the bound (it waits at
// most that, as a starving task's hold), not by every later arrival. The
// count is not stored: after a restart every task may be taken again, as
// before the rule (at worst one preemption more), never shielded.
//
// Without the rule a task restarted into a short gap was preempted again
// at the next higher-priority arrival: on Kueue's scheduler baseline the
// same 120 workloads were evicted 48 to 50 times each (6,060 evictions in
// all). Counted from the victim's restart instead (session 19's main),
// long tasks were taken by each arrival once the bound had passed since
// they restarted: on the 85% synthetic trace 23,154 s mean JCT and 1.70
// preemptions per job (docs/SIMULATOR.md). Under Payback the victim's cost,
// weighted by its earlier preemptions, does this job (cheapVictims).
//
// Sparing depends on t, so a later task of the queue (lower rank, or one
// not requeued since) may have a candidate an earlier one lacks: a search
// that spared a candidate sets s.cc.spared, and its failure is not noted
// in the failed-search memo (tryPreempt), which assumes otherwise.
func (s *Scheduler) priorityVictim(t, v *task) bool {
	if until, ok := s.spared(t, v); ok {
		s.cc.spared = true
		s.wakeAt(until) // t will have waited the bound then
		return false
	}
	return true
}

// spared reports whether priorityVictim spares v from t now, and until
// when: until t has waited the starvation bound.
func (s *Scheduler) spared(t, v *task) (until time.Time, ok bool) {
	if s.policy.Preemption != model.PreemptImmediate || v.priorityLost == 0 || v.backfill {
		return time.Time{}, false
	}
	until = t.pendingSince.Add(secs(*s.policy.StarvationBoundSeconds))
	return until, s.now.Before(until)
}
