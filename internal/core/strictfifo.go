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
// with its trials and hold jumps, the refusal jump) stay on for every team;
// each treats a strict team's list of a type by what the walk does with it:
//   - While the team has a head of the type in the walk (hasHead: in the
//     heap, or the one settleRest popped), its next try may block the rest,
//     which no bound over the whole list says: the early stop's check
//     counts the team as blocking (strictBlocks: before any trial, so no
//     try is made ahead of it, and no hold jump runs past it); the refusal
//     jump never defers it (refusable); the repeat pass never passes its
//     tasks (pushNextPassing).
//   - Once it has none, the walk tries none of its tasks of the type again
//     in this cycle: the head was tried and the rest got BehindHead (or
//     every task was tried). Its tail is empty, so the check passes it
//     (its blocked tasks ask for no wake-up and take no hold: the full
//     walk does not try them either).
//   - A spent type's bulk settle (settleTeam) tries a strict team's tasks
//     in queue order and blocks the rest after the first that stays
//     pending, as the walk does; an inert try's order across teams does
//     not matter (settle.go).
// A task queued into a clean type of a strict team is not tried alone
// (probeAdded): the type is walked. The per-type marks and the quota memo
// hold as before: a strict queue's outcome, blocked tasks included, is a
// function of its type's state. breakStrictStop (test only) lets the check
// pass a strict team that still has a head, the injected bug
// TestDifferentialCatchesBrokenStrictStop must catch.

// strict reports whether tm's queue is StrictFIFO.
func (tm *team) strict() bool { return tm.spec.QueueingStrategy.Strict() }

// strictBlocks reports, for the early stop's check of type i, whether tm
// is strict and so decided here: blocks is true while tm has a head of the
// type in the walk, false once it has none (above).
func (s *Scheduler) strictBlocks(tm *team, i int) (decided, blocks bool) {
	if !tm.strict() {
		return false, false
	}
	return true, s.hasHead(tm, i) && !s.breakStrictStop
}

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
