package core

import "time"

// The taker alone: its own tries before it (holdjump.go).
//
// After a hold jump the walk goes on with the takers and the teams that
// are not hold-blind. In the deep-backlog replay most jumps leave one team
// in the walk, the taker Y, hold-blind but for its taking: the walk then
// tried Y's tasks one by one, each changing nothing, until the first that
// reaches reserve (600,000 of 5.1 million tries at 10,000 jobs).
//
// When the walk's only heads of the type are Y's and Y's tail is
// hold-blind (holdBlind: its searches read no hold, whichever is in place),
// the tries of Y's tasks before its taker T are deferred, and T becomes
// Y's head. T is the first task of Y's tail, in queue order, whose try
// reaches reserve: not backing off, the type has nodes, within its quota
// and past its due (tryTask; it neither starts nor preempts: the jump's
// check bounded Y's whole list, and it has no node selector, as every task
// before it: a selector in that stretch keeps the walk as it is). No other
// head of the type is left, so in the full walk those tries come before
// T's, at the jump's state S, and each changes nothing but Y's
// failed-search memo and its log, its reason, and wake-ups and unpaid
// marks the check bounded (and the jump asked for).
//
// The memo is read by T's try and by Y's later tries, so it is brought to
// where those tries would find it: a hold-blind team's searches list no
// candidate that a search reaches (none at all, or, under Payback, no cheap
// one, or own cheap ones of tasks whose search fails at quotaWithout or
// roomBound: holdjump.go, holdrank.go), so each search preemptFor makes
// (modeGuaranteed for a task within its quota, or for any when the team
// does not borrow and preempts by rank; modeBorrow for one past its quota
// of a team that borrows) either is skipped by the memo or fails and
// notes the task's shape (noteFailed, which also logs it in queue order for
// the probes: blocked.go). takerAlone makes exactly those notes, task by
// task, skipping what tryTask skips before preemptFor (a task backing off,
// a type without nodes, a preemption delay not yet over).
//
// The deferred tries are rendered with the others (renderType), at the
// walk's end state, which differs from S by holds only; their reasons are
// S's (hold-blind). The render starts them from Y's memo entries as they
// were at the jump, without logging (their notes are logged already), and
// gives Y's later deferred tries the entries they had at the stop.
//
// Left out, the memo's course changed no decision in the random
// differential runs or the aged shape (a hold-blind team's searches end
// alike whether skipped or failed: no victims, no payback); it is kept so
// that the walk's memo, which the check's bounds and the probes' log read,
// is the full walk's.
//
// breakTakerAlone (test only) makes the scan miss the taker, so its try,
// which takes the hold, is deferred with the rest;
// TestDifferentialCatchesBrokenTakerAlone must see it.

// prefixRange is a stretch of a type's deferred list holding one team's
// tries deferred by takerAlone, and that team's memo entries at the time.
type prefixRange struct {
	from, to   int
	tm         *team
	g, b       failedAttempt
	hasG, hasB bool
	// saved at the render: the entries the team's later tries start from
	savedG, savedB       failedAttempt
	savedHasG, savedHasB bool
}

// takerAlone defers, after the jump of check c, the taker's tries before
// its taking task, when the taker is alone in the walk (see above).
func (s *Scheduler) takerAlone(c *stopCheck) {
	i, st := c.i, &s.stops
	if s.types[i].holder != nil {
		return // a drop jump (holddrop.go): the holder's try is the change
	}
	hp := st.heads
	h := *hp
	at := -1
	var y *team
	for k, x := range h {
		if x.i != i {
			continue
		}
		if y != nil {
			return
		}
		y, at = x.tm, k
	}
	if y == nil || !s.holdBlind(y, i, c) {
		return
	}
	q := y.byType[i]
	from := y.cursors[i] - 1
	if from < 0 || q[from] != h[at].t {
		return
	}
	k := from
	for ; k < len(q); k++ {
		t := q[k]
		if t.state != pending || t.touchedIn == s.cycle {
			continue
		}
		if t.sel != "" {
			return
		}
		if s.reachesReserve(t) && !s.breakTakerAlone {
			break
		}
	}
	if k == from {
		return // the head takes: nothing to defer
	}
	p := &st.prefix[i]
	g, hasG := s.cc.failed[plainKey(y.idx, i, modeGuaranteed)]
	b, hasB := s.cc.failed[plainKey(y.idx, i, modeBorrow)]
	*p = prefixRange{tm: y, g: g, hasG: hasG, b: b, hasB: hasB}
	for _, t := range q[from:k] {
		if t.state == pending && t.touchedIn != s.cycle {
			s.blindSearches(t)
		}
	}
	p.from = st.deferredN[i]
	s.deferView(i, y, q[from:k])
	p.to = st.deferredN[i]
	s.jump.alone++
	s.jump.aloneTasks += uint64(k - from)
	// Y's head leaves the heap; T (if any) becomes its head.
	last := len(h) - 1
	h[at] = h[last]
	h[last] = head{}
	h = h[:last]
	h.init()
	*hp = h
	st.live[i]--
	y.cursors[i] = k
	s.pushNext(hp, y, i)
}

// reachesReserve reports whether t's try at the current state reaches
// reserve, given that it neither starts nor preempts (tryTask).
func (s *Scheduler) reachesReserve(t *task) bool {
	if s.now.Before(t.notBefore) || t.typ.index.atLeast(0) == 0 {
		return false
	}
	v := s.checkQuota(t.team, t.typ.idx, t.total)
	return v.ok && v.inQuota && !s.now.Before(t.pendingSince.Add(secs(*s.policy.StarvationBoundSeconds)))
}

// blindSearches makes the memo notes of t's try, for a task of a
// hold-blind tail without a node selector (see above).
func (s *Scheduler) blindSearches(t *task) {
	tm, i := t.team, t.typ.idx
	if s.now.Before(t.notBefore) || t.typ.index.atLeast(0) == 0 {
		return // tryTask returns before any search
	}
	if delay := s.policy.PreemptionDelaySeconds; delay > 0 && s.now.Before(t.pendingSince.Add(time.Duration(delay*float64(time.Second)))) {
		return // preemptFor searches nothing yet
	}
	v := s.checkQuota(tm, i, t.total)
	borrowing := !s.settled(tm, i).LessEq(tm.quota[i])
	if v.inQuota || (!borrowing && s.rankPreemption(tm)) {
		s.blindSearch(t, modeGuaranteed)
	}
	if !v.inQuota && tm.spec.Lending.Borrows() {
		s.blindSearch(t, modeBorrow)
	}
}

// blindSearch is a search of a hold-blind tail: skipped by the memo, or
// failed, noting t's shape.
func (s *Scheduler) blindSearch(t *task, mode preemptMode) {
	key := s.taskKey(t, mode)
	if f, ok := s.cc.failed[key]; ok && f.covers(t) {
		return
	}
	s.noteFailed(key, t)
}

// prefixAt is renderType's hook before the k-th deferred try of type i:
// at the start of a taker's deferred stretch, its memo entries go back to
// the jump's (and its notes are not logged again); at the end, they return
// to the stop's.
func (s *Scheduler) prefixAt(i, k int) {
	p := &s.stops.prefix[i]
	if p.to <= p.from || (k != p.from && k != p.to) {
		return
	}
	kg := plainKey(p.tm.idx, i, modeGuaranteed)
	kb := plainKey(p.tm.idx, i, modeBorrow)
	m := s.cc.failed
	if k == p.from {
		p.savedG, p.savedHasG = m[kg]
		p.savedB, p.savedHasB = m[kb]
		setMemo(m, kg, p.g, p.hasG)
		setMemo(m, kb, p.b, p.hasB)
		s.quietLog = true
		return
	}
	setMemo(m, kg, p.savedG, p.savedHasG)
	setMemo(m, kb, p.savedB, p.savedHasB)
	s.quietLog = false
}

func setMemo(m map[attemptKey]failedAttempt, k attemptKey, f failedAttempt, has bool) {
	if has {
		m[k] = f
	} else {
		delete(m, k)
	}
}
