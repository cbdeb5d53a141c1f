package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// Incremental cycles.
//
// Everything that decides a pending task's outcome is scoped to its instance
// type: the type's nodes and their free-capacity and topology indexes, its
// starvation hold, and per-type quota usage, lend and borrow pools and
// unallocated overflow. Victim searches look only at running tasks of the
// same type, and the cycle's memos are keyed by type. The one exception is
// the weighted share under FairShare, which takes a team's borrowing over
// all types; when what it reads moves (shareMoved), the types where a moved
// team has pending or running tasks are marked (every type when a type's
// unallocated capacity moved, which every share reads).
//
// A cycle therefore re-evaluates only the instance types marked since their
// last evaluation: by an input (submission, completion, failure, node change,
// hold), by a change the previous cycle made in the type (admission,
// preemption, hold), or by a time-based rule of the type falling due
// (typeWake). The tasks of an unmarked type would, tried again at unchanged
// state, fail again with the same reason and the same wake-up, so they keep
// what their last evaluation recorded. Because the cycle's heap holds one
// head per team and type (queue.go), the order in which a type's tasks are
// tried does not depend on other types' tasks, so processing a subset of
// types decides exactly what the full cycle decides for those types.
//
// SetFullRescan(true) evaluates every type in every cycle: the reference the
// differential test (incremental_test.go) compares against.

// SetFullRescan makes every cycle that runs evaluate every pending task (the
// reference mode), or, off (the default), only the instance types an input
// or a due time-based rule touched. Decisions are the same either way.
// The reference also computes every quota answer (no memo, quotamemo.go).
func (s *Scheduler) SetFullRescan(on bool) { s.fullRescan, s.qm.off = on, on }

// touch records an input that may change any pending task's outcome: the next
// cycle evaluates every instance type.
func (s *Scheduler) touch() {
	s.dirty = true
	s.allDirty = true
}

// touchType records an input that changes only instance type i's queues (a
// task queued, resumed, reprioritised or taken out of a queue).
func (s *Scheduler) touchType(i int) {
	s.dirty = true
	if s.breakMarks {
		return // test-only: the injected bug the differential test must catch
	}
	s.ensureMarks()
	s.typeDirty[i] = true
}

// touchUsage records a change of type i's usage or capacity (a running task
// stopped, a node changed). Under FairShare such a change can also move a
// team's weighted share, which orders and limits every type: shareMoved
// catches that at the next cycle's start.
func (s *Scheduler) touchUsage(i int) { s.touchType(i) }

// shareMoved reports what a weighted share reads across types (every
// team's borrowing per type, every type's unallocated capacity open to
// borrowers) changed since the last call, under FairShare with more than one
// type: all when a type's unallocated capacity moved (every team's share),
// else the teams whose borrowing moved. It keeps what it saw for the next
// call. O(teams × types), or O(types + listed teams × types) while the
// team list stands (sharemoved.go).
func (s *Scheduler) shareMoved() (all bool, teams []*team) {
	if s.policy.IdleComputeAllocation != model.FairShare || len(s.types) < 2 {
		s.shareSnap = s.shareSnap[:0]
		s.clearShareTeams()
		return false, nil
	}
	n := len(s.types)
	want := (len(s.teams) + 1) * n
	if s.shareUnmoved(want) {
		return false, nil // nothing it reads moved since the last call (sharemoved.go)
	}
	listed := !s.fullRescan && !s.shareAll && len(s.shareSnap) == want
	if len(s.shareSnap) != want {
		s.shareSnap = make([]resource.Vector, want)
		all = true
	}
	for i := 0; i < n; i++ {
		if v := s.unallocatedAllowed(i); s.shareSnap[i] != v {
			s.shareSnap[i] = v
			all = true
		}
	}
	if listed {
		// Only the teams whose borrowing was written since the last
		// pass may differ from their snapshot (sharemoved.go).
		for _, tm := range s.shareTeams {
			if !s.breakShareList && s.shareRowMoved(tm, tm.idx, n) {
				teams = append(teams, tm)
			}
		}
	} else {
		for k, tm := range s.teams {
			if s.shareRowMoved(tm, k, n) {
				teams = append(teams, tm)
			}
		}
	}
	s.clearShareTeams()
	s.shareEpoch = s.qm.epoch
	return all, teams
}

// shareRowMoved compares tm's borrowing per type with row k of the
// snapshot (after the n types' unallocated capacities), and records it.
func (s *Scheduler) shareRowMoved(tm *team, k, n int) bool {
	row := s.shareSnap[(k+1)*n : (k+2)*n]
	moved := false
	for i := range row {
		if row[i] != tm.borC[i] {
			row[i] = tm.borC[i]
			moved = true
		}
	}
	return moved
}

// markShares marks what a moved share can change: every type if all, else,
// for each team whose share moved, the types where it has pending tasks
// (ordered among borrowers by its share) or running ones (fair-share
// victims, allowed by its share). A type where it has neither never reads
// its share.
func (s *Scheduler) markShares(all bool, teams []*team) {
	if s.breakMarks {
		return
	}
	if all {
		s.touch()
		return
	}
	for _, tm := range teams {
		// The per-type lists hold every task of the queue's sorted part (and
		// maybe stale ones: marking a type too many is safe); the tail
		// queued since the sort is read task by task.
		for i := range s.types {
			if len(tm.run[i]) > 0 || (i < len(tm.byType) && len(tm.byType[i]) > 0) {
				s.touchType(i)
			}
		}
		for _, t := range tm.pending[min(tm.sortedLen, len(tm.pending)):] {
			if t.state == pending {
				s.touchType(t.typ.idx)
			}
		}
	}
}

// touchTask is touchType or touchUsage for t's type, depending on whether t
// held resources (ran or held nodes) when it changed.
func (s *Scheduler) touchTask(t *task, ran bool) {
	if ran {
		s.touchUsage(t.typ.idx)
		return
	}
	s.touchType(t.typ.idx)
}

func (s *Scheduler) ensureMarks() {
	if len(s.typeDirty) != len(s.types) {
		// A type never evaluated is dirty: its recorded outcomes are none.
		s.typeDirty = make([]bool, len(s.types))
		for i := range s.typeDirty {
			s.typeDirty[i] = true
		}
		s.typeAdded = make([][]*task, len(s.types))
		s.typeWake = make([]time.Time, len(s.types)+1)
		for i := range s.typeWake {
			s.typeWake[i] = never
		}
	}
}

// startMarks picks the types this cycle evaluates (into s.work) and clears
// their marks and wake-ups; marks made during the cycle count for the next.
func (s *Scheduler) startMarks(now time.Time) {
	s.ensureMarks()
	n := len(s.types)
	s.markShares(s.shareMoved())
	all := s.fullRescan || s.allDirty || !now.Before(s.typeWake[n])
	if cap(s.work) < n {
		s.work = make([]bool, n)
	}
	s.work = s.work[:n]
	for i := range s.work {
		s.work[i] = all || s.typeDirty[i] || !now.Before(s.typeWake[i])
		if s.work[i] {
			s.typeDirty[i] = false
			s.typeWake[i] = never
			clear(s.typeAdded[i])
			s.typeAdded[i] = s.typeAdded[i][:0]
		}
	}
	if all {
		s.typeWake[n] = never
	}
	s.allDirty = false
	s.curType = -1
}

// endMarks marks the types the cycle changed and sets dirty and nextWake.
func (s *Scheduler) endMarks(d *model.Decision) {
	s.curType = -1
	mark := func(name string) {
		if t := s.tasks[name]; t != nil {
			s.touchUsage(t.typ.idx)
		} else {
			s.touch() // a task gone for good: mark everything rather than guess
		}
	}
	for _, a := range d.Admissions {
		mark(a.Task)
	}
	for _, p := range d.Preemptions {
		mark(p.Task)
	}
	s.markShares(s.shareMoved())
	s.dirty = s.allDirty
	for i, m := range s.typeDirty {
		s.dirty = s.dirty || m || len(s.typeAdded[i]) > 0
	}
	s.nextWake = never
	for _, w := range s.typeWake {
		if w.Before(s.nextWake) {
			s.nextWake = w
		}
	}
}

// markHold records a hold made or dropped on type i during a cycle.
func (s *Scheduler) markHold(i int) {
	if !s.breakMarks {
		s.ensureMarks()
		s.typeDirty[i] = true
	}
}

// wakeAt asks for a cycle no later than at, when a time-based rule
// (starvation bound, preemption delay, fair-share minimum runtime) of the
// type being tried may change the outcome.
func (s *Scheduler) wakeAt(at time.Time) {
	s.ensureMarks()
	i := s.curType
	if i < 0 {
		i = len(s.types) // not inside a task's try: wakes every type
	}
	if at.Before(s.typeWake[i]) {
		s.typeWake[i] = at
	}
}
