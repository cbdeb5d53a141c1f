package core

import "github.com/taskgov/taskgov/internal/resource"

// Tails whose victim searches the memo skips (the early stop, stop.go).
//
// A try's victim searches start at the cycle's failed-search memo
// (tryPreempt): for its team, type, mode and selector, a search that failed
// this cycle for a task no larger (pod, gang size, required topology level)
// answers "no" before anything else is read: no candidates are listed, no
// wake-up asked for, no unpaid mark set, no memo written. In a deep queue
// each team's first failed searches soon leave an entry that covers the
// rest of its queue, and then its tail's searches are all skipped.
//
// So the check (stopcheck.go) does not need to bound what a tail's
// searches could do (own lower-priority victims under rank preemption,
// cheap reclaims, fair-share victims, their wake-ups and unpaid marks) when,
// at the state S of the check, the memo covers every search a tail task of
// the team can make:
//   - no tail task has a node selector (the memo's key then is the empty
//     one), and
//   - for each mode a tail task may search (preemptFor: within quota if
//     the task fits its team's quota, or, with rank preemption, if the team
//     does not borrow; borrowing if it does not fit and the team borrows),
//     the entry covers the componentwise smallest pod, the smallest gang
//     and the loosest required level over the team's whole list (queueAgg,
//     a superset of its tail): covers is monotone in each of them, so it
//     covers every tail task.
// The tail's tries then read the memo at S and write nothing to it, so in
// the full walk and in the deferred tries (renderType, which starts from the
// memo the walk held at the stop) each of them skips its searches alike.
// What a try does before its searches (backoff, admission, the starvation
// hold, the preemption delay) the rest of the check bounds as before; after
// them it only records its reason. breakStopSkip (test only) takes any
// entry as covering, the injected bug the differential test must catch.

// shapeAgg is what covers reads of a team's list of one type: its
// componentwise smallest pod, loosest required level (-1: none), largest
// request (to tell whether every task fits the quota), and whether a task
// has a node selector. queueAgg.foldOne folds it (aggcount.go).
type shapeAgg struct {
	minPod   resource.Vector
	maxTotal resource.Vector
	minReq   int
	anySel   bool
}

// searchesSkipped reports whether the memo skips every victim search of
// tm's tail of type i at the current state (see above); a is its aggregate.
func (s *Scheduler) searchesSkipped(tm *team, i int, a *queueAgg) bool {
	sh := &a.shape
	if sh.anySel || s.fullRescan {
		return false
	}
	use, quota := tm.usage[i], tm.quota[i]
	someIn := use.Add(a.minTotal).LessEq(quota)  // a tail task may fit the quota
	allIn := use.Add(sh.maxTotal).LessEq(quota)  // every tail task fits it
	borrowing := !s.settled(tm, i).LessEq(quota) // preemptFor's
	guaranteed := someIn || (!borrowing && s.rankPreemption(tm))
	borrow := !allIn && tm.spec.Lending.Borrows()
	return (!guaranteed || s.memoCovers(tm, i, modeGuaranteed, a)) &&
		(!borrow || s.memoCovers(tm, i, modeBorrow, a))
}

// memoCovers reports whether the memo's entry for tm, type i and mode
// (no selector) covers every task of the aggregate a.
func (s *Scheduler) memoCovers(tm *team, i int, mode preemptMode, a *queueAgg) bool {
	f, ok := s.cc.failed[plainKey(tm.idx, i, mode)]
	if !ok {
		return false
	}
	if s.breakStopSkip {
		return true
	}
	p := a.shape.minPod
	return p.GPUs >= f.pod[0] && p.MilliCPU >= f.pod[1] && p.MemMiB >= f.pod[2] && a.minNodes >= f.nodes &&
		a.shape.minReq >= f.req
}
