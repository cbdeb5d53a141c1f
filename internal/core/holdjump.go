package core

import "github.com/taskgov/taskgov/internal/model"

// The hold jump: a walk that must go on only to find who takes the hold.
//
// In a queue past its starvation bound (rule 8) with no holder, the first
// task in the walk's order that is within its quota, past its due, and
// neither starts nor preempts takes the type's hold (reserve). The early
// stop (stop.go) cannot pass while such a task is still to be tried
// (holdDue, stophold.go), so after a completion in an aged queue the walk
// tried every head before it: a thousand or more other teams' borrowing
// tasks, each refused by its quota or finding no room (BenchmarkOneInput's
// aged rows).
//
// When the check fails only because of such teams (the takers: every team
// passes every other bound of stop.go's argument), the rest of the walk can
// change nothing but the hold: no admission, preemption, unpaid mark or
// wake-up the check has not bounded, and a hold taken by the first task
// that reaches reserve (tasks of other teams do not reach it: their tails
// are refused by quota, exceed it or are not yet due). Of the other teams, those whose
// tails are hold-blind (holdBlind) are deferred at once, as a stop defers
// a tail: their tries are made later, at the walk's end state, only to
// write their wait reasons (renderType). The walk goes on with the takers
// and the teams that are not hold-blind, in the heap's order (removing
// whole teams keeps the order of the rest), until the hold is taken; then
// the holder has been tried and the check passes (stophold.go).
//
// Why the deferred reasons are the full walk's. In the full walk, a
// deferred team's tries come before or after the hold is taken, so at the
// state S of the jump or at S with the hold; the render makes them at the
// end state, which is one of the two. A try reads the hold in place,
// reserve and victim searches; the rest does not: quota verdicts read
// usage, and place, for every tail task whose quota passes, returns at its
// count check, with that count (fewer nodes reach the task's bucket than
// its gang has: the check's no-admission bound, which the team passed), so
// NoCapacity's count, the HeldForOther test (a place that ignores holds)
// and NoTopologyFit read no hold either. A deferred tail reaches neither
// reserve nor a search that reads nodes:
//   - reserve: its team is not a taker, so its tasks are refused by quota,
//     or exceed it, or are not yet due (the check's bounds are over the
//     team's whole list).
//   - searches: the memo skips them all (stopskip.go), and the team does
//     not preempt its own tasks under preemption Immediate (protectedWait,
//     which then searches whatever the memo, says nothing); or its own
//     victims' searches read no hold (no rank preemption, or under Payback
//     what rankBlocks passes: holdrank.go), a task within its quota has no
//     other team's borrowed task to reclaim (none in cycleBorrowed, or the
//     team never reclaims), and its borrowing searches (tasks past its
//     quota, a team that borrows) list no candidate (fair share does not
//     rebalance, no other team's reclaimable task is past its minimum
//     runtime) or, under preemption Payback, no cheap one (fairDearOnly:
//     nothing is searched).
// Its reason is then the same whatever the hold. What else its tries do
// (memo writes of its own team, wake-ups, the unpaid mark) the check
// bounded as for a stop: the jump asks for the tail's wake-ups, as a stop
// does.
//
// A tail within its quota with another team's borrowed task to reclaim
// walks on: its search reads the nodes, hence the hold (a victim set found
// before the hold may not be found after it: waiting for its payback
// becomes waiting for capacity). breakJumpBlind (test only) defers such
// tails too, the injected bug TestDifferentialCatchesBrokenHoldJump must
// catch.

// jumpState is the hold jump's per-cycle state.
type jumpState struct {
	cycle      []uint64 // per type: the cycle of its last jump
	out        [][]bool // per type and team: deferred by that jump
	takers     []*team  // scratch of the check (stopCheck.takers)
	jumps      uint64   // walks that jumped (a measure)
	drops      uint64   // of the checks that jumped, those for a holder's drop (holddrop.go; a measure)
	alone      uint64   // walks whose taker's tries before it were deferred (holdtaker.go; a measure)
	aloneTasks uint64   // the tasks they deferred (a measure)
	teams      uint64   // team tails they deferred (a measure)
}

// jumpedOut reports whether the walk of type i in this cycle deferred tm's
// tail at its jump. The walk's later checks skip such a team: its tail is
// no longer in the walk, the jump's check bounded what its deferred tries
// may do, and since then only the hold has moved, which they do not read.
func (s *Scheduler) jumpedOut(i int, tm *team) bool {
	j := &s.jump
	return i < len(j.cycle) && j.cycle[i] == s.cycle && j.out[i][tm.idx]
}

// jumpable reports whether a check of type i may jump: a walk's check
// (not settleRest's, which holds a popped head), no holder, no jump yet in
// this cycle.
func (s *Scheduler) jumpable(i int) bool {
	j := &s.jump
	if len(j.cycle) != len(s.types) {
		j.cycle, j.out = make([]uint64, len(s.types)), make([][]bool, len(s.types))
	}
	return s.stops.heads != nil && s.stops.popped.t == nil && s.types[i].holder == nil && j.cycle[i] != s.cycle
}

// holdJump defers, for the check c that failed only at its takers, every
// hold-blind team's tail of type c.i (see above).
func (s *Scheduler) holdJump(c *stopCheck) {
	i, st, j := c.i, &s.stops, &s.jump
	j.cycle[i] = s.cycle
	if c.wake.Before(s.typeWake[i]) && !s.breakStopWake {
		s.typeWake[i] = c.wake // the deferred tails' wake-ups (stopwake.go)
	}
	if len(j.out[i]) != len(s.teams) {
		j.out[i] = make([]bool, len(s.teams))
	}
	j.takers = c.takers[:0] // the scratch, kept for the next check
	out := j.out[i]
	for k := range out {
		out[k] = true
	}
	for _, tm := range c.takers {
		out[tm.idx] = false // its tail may take the hold: it walks on
	}
	h := *st.heads
	any := false
	for _, x := range h {
		if x.i == i && out[x.tm.idx] {
			out[x.tm.idx] = s.holdBlind(x.tm, i, c)
			any = any || out[x.tm.idx]
		}
	}
	if !any {
		s.snapJump(i)
		s.takerAlone(c) // the taker may be alone already (holdtaker.go)
		return
	}
	j.jumps++
	q := h[:0]
	for _, x := range h {
		if x.i == i && out[x.tm.idx] {
			s.deferTail(x)
			st.live[i]-- // no longer in the heap (stoptypes.go)
			j.teams++
		} else {
			q = append(q, x)
		}
	}
	for k := len(q); k < len(h); k++ {
		h[k] = head{}
	}
	q.init()
	*st.heads = q
	s.snapJump(i)
	s.takerAlone(c) // the taker alone in the walk (holdtaker.go)
}

// snapJump keeps what renderType starts from: the cycle (its victims are
// skipped) and the memo, of which the deferred teams' entries change no
// more; a stop later in the walk takes them again with the rest.
func (s *Scheduler) snapJump(i int) {
	st := &s.stops
	st.cycle[i] = s.cycle
	memo := map[attemptKey]failedAttempt{}
	for k, f := range s.cc.failed {
		if k.typ() == i {
			memo[k] = f
		}
	}
	st.memo[i] = memo
}

// holdBlind reports whether every try of tm's tail of type i records a
// reason that does not read the type's hold (see above); bor is the check's
// summary of the type's reclaimable tasks.
func (s *Scheduler) holdBlind(tm *team, i int, c *stopCheck) bool {
	if len(tm.byType) <= i || len(tm.byType[i]) == 0 {
		return false
	}
	rank := s.rankPreemption(tm)
	if rank && s.policy.Preemption != model.PreemptPayback {
		return false // protectedWait searches, even where the memo skips the rest
	}
	bor := c.bor
	a := tm.agg(i)
	if s.searchesSkipped(tm, i, a) {
		return true
	}
	if rank {
		if !s.rankBlind(tm, c) {
			return false
		}
		if s.breakJumpRank {
			return true // test only: the rest of the argument skipped (holdrank.go)
		}
	}
	use, quota, p := tm.usage[i], tm.quota[i], &s.policy
	if use.Add(a.minTotal).LessEq(quota) && bor.othersThan(tm) && tm.spec.ReclaimWithinGroup != model.ReclaimNever &&
		!s.breakJumpBlind {
		return false // a task within its quota may reclaim: its search reads the nodes
	}
	if tm.spec.BorrowWithinGroup.Preempts() && tm.spec.Lending.Borrows() && bor.othersThan(tm) {
		return false // its borrowing searches may take other teams' tasks for priority (borrowwithin.go)
	}
	switch {
	case use.Add(a.shape.maxTotal).LessEq(quota), !tm.spec.Lending.Borrows():
		return true // no borrowing search
	case p.IdleComputeAllocation != model.FairShare || !*p.FairShareRebalance:
		return true // a borrowing search lists fair-share victims only (no rank preemption)
	case !bor.ready || !bor.othersThan(tm):
		return true
	}
	return p.Preemption == model.PreemptPayback && !bor.cheapOthersThan(tm)
}
