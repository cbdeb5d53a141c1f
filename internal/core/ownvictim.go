package core

import "github.com/taskgov/taskgov/internal/model"

// Within-team preemption by priority (rule 3, preemptTeamTasks).
//
// Under rank preemption (rankPreemption) a pending task t may take its own
// team's running task v of the same instance type when v's class is below
// t's. With LowerOrNewerEqualPriority (Kueue's withinClusterQueue setting)
// it may also take v of t's class submitted strictly later than t (by
// submit time; equal times never preempt each other, as in Kueue). v is then
// behind t in the team's queue (queueLess: rank, submit time, order), so
// two tasks never take each other, and a task later in the queue has no
// own candidate an earlier one lacks: the cycle's failed-search memo
// (failedAttempt), which assumes that, holds. The exception is a task
// priorityVictim spares for one preemptor and not another (preemption
// Immediate, immediate.go): a search that spared one is not noted.
//
// The early stop's and the hold jump's bounds on own candidates
// (stoprank.go, holdrank.go) are written for candidates of lower class
// only: a team with newerEqual keeps the walk going instead (rankBlocks).

// newerEqual reports whether tm's tasks may also preempt its newer tasks of
// equal priority.
func newerEqual(tm *team) bool {
	return tm.spec.PreemptTeamTasks == model.PreemptLowerOrNewerEqualPriority
}

// ownVictim reports whether t, under rank preemption, may preempt v, a
// running task of its own team.
func ownVictim(t, v *task) bool {
	if v.rank != t.rank {
		return v.rank < t.rank
	}
	return newerEqual(t.team) && t.spec.SubmitTime.Before(v.spec.SubmitTime)
}
