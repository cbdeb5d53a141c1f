package core

import "github.com/taskgov/taskgov/internal/model"

// StrictFIFO: a team's queue that lets no task pass one that cannot start
// (the team's queueingStrategy; Kueue's ClusterQueue setting of that name).
//
// The walk (cycle.go) tries a team's tasks of an instance type one at a
// time, in queue order (rank, then submit time, then submission). Under
// BestEffortFIFO a task that stays pending lets the team's next task try.
// Under StrictFIFO, when a task of the team is tried and stays pending for
// any reason but its retry backoff (Kueue keeps a workload in backoff out
// of the queue's head), the walk tries no later task of the team and type
// in that cycle: each gets BehindHead, naming the task that blocks it, and
// drops a starvation hold it had (a task that is not tried cannot take up
// its hold, and the task ahead may wait for that very hold). The blocking
// task itself is tried as any head: it may borrow, reclaim and preempt by
// the rules. Other teams are not blocked, nor the team's tasks of other
// instance types (a team's queue per type is its own: queue.go).
//
// The walk's shortcuts (the repeat pass, the bulk settle, the early stop
// with its trials and hold jumps, the refusal jump) argue from bounds over
// a team's whole list, which a strict team's tasks behind a blocking one
// never reach; while any team is strict, the walk makes every try itself
// (plainWalk), and a task queued into a clean type of a strict team is not
// tried alone (probeAdded): the type is walked. What stays incremental,
// the per-type marks and the quota memo, holds as before: a strict queue's
// outcome, blocked tasks included, is a function of its type's state.

// strict reports whether tm's queue is StrictFIFO.
func (tm *team) strict() bool { return tm.spec.QueueingStrategy.Strict() }

// plainWalk reports whether the walk makes every try itself, as the full
// rescan does: the reference mode, or a cluster with a strict team (above).
func (s *Scheduler) plainWalk() bool { return s.fullRescan || s.strictTeams > 0 }

// blocksQueue reports whether t, just tried, keeps its strict team's later
// tasks of its type from being tried in this cycle.
func blocksQueue(t *task) bool {
	return t.team.strict() && t.state == pending && (t.wait == nil || t.wait.Code != model.BackingOff)
}

// blockBehind gives every task of tm's queue of type i after the cursor
// that the cycle has not handled BehindHead, naming head, drops any hold
// such a task has, and moves the cursor past them: the walk pushes none.
func (s *Scheduler) blockBehind(tm *team, i int, head *task) {
	q := tm.byType[i]
	for tm.cursors[i] < len(q) {
		t := q[tm.cursors[i]]
		tm.cursors[i]++
		if t.state != pending || t.touchedIn == s.cycle {
			continue // a victim of this cycle waits for the next (pushNext)
		}
		s.releaseHold(t)
		s.setWait(t, model.WaitReason{Code: model.BehindHead, InstanceType: t.typ.spec.Name, Detail: head.spec.Name})
	}
}

// countStrict recounts the strict teams (SetTeam, DeleteTeam).
func (s *Scheduler) countStrict() {
	s.strictTeams = 0
	for _, tm := range s.teams {
		if tm.strict() {
			s.strictTeams++
		}
	}
}
