package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Trials: the early stop's check makes a tail try ahead of its turn.
//
// The check (stop.go) bounds what each team's tail can do from aggregates
// and scans. Its victim-search bounds fail for a tail task whose search
// may really find victims: one above an own cheap task (stoprank.go), or a
// fair-share search whose wait may have paid (the rent bound). In a deep
// backlog (BenchmarkReplayBacklog) such a task sits hundreds of tries
// down the walk, its search then fails, and the walk tried every task
// before it only to get there: more than a quarter of the replay's tries.
//
// When the bounds of team tm's tail fail only in its searches (the part of
// the check from the failed-search memo on: stopCheck.inSearch), the check
// makes the tries that may search, in tm's queue order, at the state S of
// the check, as renderType makes a deferred try (rendering: a try that
// would admit, preempt or take a hold changes nothing and counts in
// renderHits), and passes the team when none of them would change
// anything. The tries of the tail that the memo skips are not made: they
// search nothing, and what else they do the rest of the check bounds, as
// for any tail task.
//
// Why a trial is the try the full walk makes. If every team passes, the
// full walk's remaining tries are at S: the first is at S, and each try
// that changes nothing leaves S as it was, but for its team's failed
// -search memo, the type's wake-up (only ever lowered, read by no try)
// and the unpaid mark (read by no try). A try of tm reads tm's memo
// entries only, so the memo it sees at its turn is the one before the
// check, after the writes of tm's earlier tail tries: the scan keeps that
// memo (trialMemo), each trial writes it, and a skipped try writes
// nothing. So each trial is that task's try in the full walk. A trial that
// would change the unpaid mark or a hold blocks the stop; the wake-up a
// trial asks for, the stop asks for (stopCheck.wake). Where the check
// passes, the walk stops and renderType later makes the same tries again,
// at S, with the walk's memo at the stop, in queue order: the same
// outcomes, which is why renderHits stays zero. A trial reads one type's
// state, and under FairShare the weighted shares of every type: trials are
// made only while no other type of the cycle can still change anything
// (otherTypesMove, stoptypes.go).
//
// The trials of a team are kept while the walk changes nothing (the
// walk's generation): the walk's own tries of those tasks are then at S
// too, and have the trial's outcome. maxTrials bounds the trials of one
// check; the next check goes on where it left. breakTrial (test only)
// takes a trial that would change something as one that changes nothing,
// the injected bug TestDifferentialCatchesBrokenTrial must catch.

// maxTrials is the most tries one check makes ahead for one team.
const maxTrials = 8

// trialScan is how far the trials of one team's tail of one type went, at
// the cycle and walk generation they were made at.
type trialScan struct {
	cycle, gen uint64
	from       int  // the tail's start the scan began at
	pos        int  // tasks before pos are tried ahead or skipped
	stuck      bool // the trial at pos would change something
	done       bool // every task of the list is tried ahead or skipped
	memo       trialMemo
	wake       time.Time // the earliest wake-up the trials asked for
}

// trialMemo is a team's failed-search memo of one type (no selector) as the
// walk holds it at the scan's position.
type trialMemo struct {
	g, b       failedAttempt
	hasG, hasB bool
}

// trialClears reports whether tm's tail in type c.i, whose searches the
// check could not bound, changes nothing when its searches are tried ahead
// (see above); if so, it folds their wake-ups into c.wake.
func (s *Scheduler) trialClears(tm *team, c *stopCheck) bool {
	i := c.i
	if !c.inSearch || s.otherTypesMove(i) || len(tm.byType) <= i {
		return false
	}
	st := &s.stops
	if len(st.trials[i]) != len(s.teams) {
		st.trials[i] = make([]trialScan, len(s.teams))
	}
	q := tm.byType[i]
	from := max(tm.cursors[i]-1, 0)
	sc := &st.trials[i][tm.idx]
	if sc.cycle != s.cycle || sc.gen != st.gen || from < sc.from || sc.pos < from {
		g, hasG := s.cc.failed[plainKey(tm.idx, i, modeGuaranteed)]
		b, hasB := s.cc.failed[plainKey(tm.idx, i, modeBorrow)]
		*sc = trialScan{cycle: s.cycle, gen: st.gen, from: from, pos: from, memo: trialMemo{g, b, hasG, hasB}, wake: never}
	}
	if !sc.done && !sc.stuck {
		s.trialFrom(tm, i, q, sc)
	}
	if !sc.done || sc.stuck {
		return false
	}
	if sc.wake.Before(c.wake) {
		c.wake = sc.wake
	}
	c.trialed = true
	return true
}

// trialFrom goes on with tm's scan: it skips the tasks whose searches the
// memo skips and tries the others ahead, up to maxTrials.
func (s *Scheduler) trialFrom(tm *team, i int, q []*task, sc *trialScan) {
	use, quota := tm.usage[i], tm.quota[i]
	rank := s.settled(tm, i).LessEq(quota) && s.rankPreemption(tm) // a team that does not borrow searches within quota (preemptFor)
	borrows := tm.spec.Lending.Borrows()
	m := &sc.memo
	made := 0
	for ; sc.pos < len(q); sc.pos++ {
		t := q[sc.pos]
		if t.state != pending || t.touchedIn == s.cycle {
			continue
		}
		in := use.Add(t.total).LessEq(quota)
		gs, bs := in || rank, !in && borrows
		if t.sel == "" && (!gs || (m.hasG && m.g.covers(t))) && (!bs || (m.hasB && m.b.covers(t))) {
			continue // the memo skips its searches: it searches nothing
		}
		if t.sel != "" || t.holds() || made == maxTrials {
			sc.stuck = t.sel != "" || t.holds()
			return
		}
		made++
		if !s.trial(t, sc) {
			sc.stuck = true
			return
		}
	}
	sc.done = true
}

// trial makes t's try ahead, at the current state, with its team's memo as
// the scan holds it (see above); it reports whether the try would change
// nothing, and leaves the state, t's wait reason (its own try or render
// writes it; the tail's start may be a task already tried: tailTopRank),
// the walk's memo and the type's wake-up and unpaid mark as they were; the
// scan keeps the memo the try wrote and the wake-up it asked for.
func (s *Scheduler) trial(t *task, sc *trialScan) bool {
	i, tm := t.typ.idx, t.team
	kg, kb := plainKey(tm.idx, i, modeGuaranteed), plainKey(tm.idx, i, modeBorrow)
	st := &s.stops
	failed, noRoom, payback, best, cur := s.cc.failed, s.cc.noRoom, s.cc.payback, s.cc.bestSpread, s.curType
	if st.trialFailed == nil {
		st.trialFailed, st.trialNoRoom = map[attemptKey]failedAttempt{}, map[placeKey]bool{}
	}
	clear(st.trialFailed)
	clear(st.trialNoRoom)
	m := &sc.memo
	if m.hasG {
		st.trialFailed[kg] = m.g
	}
	if m.hasB {
		st.trialFailed[kb] = m.b
	}
	s.cc.failed, s.cc.noRoom = st.trialFailed, st.trialNoRoom
	wake, reason := s.typeWake[i], t.wait
	var borrowed []*task
	if i < len(s.cc.borrowed) {
		borrowed = s.cc.borrowed[i] // the walk computes it at its own first search (cycleBorrowed)
	}
	st.trialRuns = st.trialRuns[:0]
	unpaid := i < len(s.unpaid) && s.unpaid[i]
	hits, holds := st.renderHits, s.holdChanges
	s.rendering, s.trialing, s.curType = true, true, i
	s.typeWake[i] = never
	var d model.Decision
	s.tryTask(t, &d)
	s.rendering, s.trialing, s.curType = false, false, cur
	asked := s.typeWake[i]
	s.typeWake[i], t.wait = wake, reason
	if i < len(s.cc.borrowed) {
		s.cc.borrowed[i] = borrowed
	}
	s.restoreRunOrder()
	changed := len(d.Admissions)+len(d.Preemptions) > 0 || st.renderHits != hits || s.holdChanges != holds || (i < len(s.unpaid) && s.unpaid[i] != unpaid)
	st.renderHits = hits
	if i < len(s.unpaid) {
		s.unpaid[i] = unpaid
	}
	m.g, m.hasG = st.trialFailed[kg]
	m.b, m.hasB = st.trialFailed[kb]
	s.cc.failed, s.cc.noRoom, s.cc.payback, s.cc.bestSpread = failed, noRoom, payback, best
	st.trialsMade++
	if asked.Before(sc.wake) {
		sc.wake = asked
	}
	return !changed || s.breakTrial
}

// runOrder is a team's running list of one type as it was before a trial's
// first victim search took a task off it.
type runOrder struct {
	run  *[]*task
	keep []*task
}

// keepRunOrder notes, in a trial, the running list t leaves, once: a victim
// search takes tasks off (unassign moves the last into the gap) and puts
// them back at the end (reassign), so the list's order after a failed
// search is not the order before. The walk's own searches do that too, in
// the full walk's order; a trial's extra search must not, so the trial puts
// the order back (restoreRunOrder).
func (s *Scheduler) keepRunOrder(t *task) {
	run := &t.team.run[t.typ.idx]
	for _, k := range s.stops.trialRuns {
		if k.run == run {
			return
		}
	}
	s.stops.trialRuns = append(s.stops.trialRuns, runOrder{run, append([]*task(nil), *run...)})
}

// restoreRunOrder puts back the lists keepRunOrder noted; the trial has
// put back every task it took off.
func (s *Scheduler) restoreRunOrder() {
	for _, k := range s.stops.trialRuns {
		*k.run = append((*k.run)[:0], k.keep...)
		for p, t := range *k.run {
			t.runPos = int32(p)
		}
	}
	s.stops.trialRuns = s.stops.trialRuns[:0]
}
