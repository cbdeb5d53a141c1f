package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// The repeat pass: a team's next task, refused as its previous one was,
// gets its reason without a trip through the heap.
//
// In the deep-backlog replay 90-96% of the walk's tries repeat a refusal
// (NoIdleCompute) of a task of the same team and class earlier in the
// walk, and 98.5% of those (10,000 jobs) are popped right after a try of
// their own team: the team's next head is the heap's least, so the walk
// pushes it, pops it at once and tries it, changing nothing.
//
// When e's try changed nothing, pushNextPassing does what the walk would
// do with e's team's next task t of type i as long as all of these hold:
//   - t's head would be popped next: it comes before the heap's least
//     (after e's pop no other head is between);
//   - none of the walk's checks would run at t's pop or try: the early
//     stop's (afterTry's doubling interval, counting e's try) and the
//     settle's (settleRest's interval) both have room; the type is not
//     stopped; the refusal jump has no team of type i deferred (its log
//     records each pop);
//   - t's team is not StrictFIFO (e's try may have blocked the rest, or
//     t's may: strictfifo.go);
//   - tryTask's outcome is fixed without running it (the refusal jump's
//     argument for one task, refusejump.go): t is not backing off, has no
//     node selector and holds no nodes, the type has nodes, t's quota
//     check refuses it, no preemption delay is pending for it, and each
//     search preemptFor would run for it is skipped by the failed-search
//     memo (a skipped search has no effect), and protectedWait says
//     nothing (not Immediate with rank preemption).
// Then t's try would set cc.payback and cc.inQuota as preemptFor does,
// write v.wait and change nothing else; the pass does exactly that and
// counts the try (tried, the stop's and the settle's counters), so every
// later check, decision and count is the walk's. Not in the full rescan.
//
// breakPass (test only) passes a task whose searches the memo does not
// skip, and breakPassOrder one whose head would not be popped next (other
// teams' tries come first in the walk): the injected bugs the differential
// test must catch.

// pushNextPassing pushes tm's next task of type i after e's try, passing
// the repeats above; changed reports whether e's try changed anything.
func (s *Scheduler) pushNextPassing(h *heads, e head, changed bool) {
	tm, i := e.tm, e.i
	if changed || s.fullRescan || tm.strict() || s.probing || s.rendering || s.stops.stopped[i] || len(s.refusedList(i)) > 0 {
		s.pushNext(h, tm, i)
		return
	}
	st, se := &s.stops, &s.settle
	// The scan is pushNext's, written out: one helper for both, which the
	// compiler does not inline, cost 4% of the 10,000-job replay's CPU
	// (1.56 and 1.58 s against 1.51 and 1.50 s, alternated, session 12).
	q := tm.byType[i]
	for tm.cursors[i] < len(q) {
		t := q[tm.cursors[i]]
		tm.cursors[i]++
		if t.state != pending || t.touchedIn == s.cycle {
			continue
		}
		k := head{tm: tm, i: i, t: t, borrows: !tm.usage[i].Add(t.total).LessEq(tm.quota[i])}
		if k.borrows && s.policy.IdleComputeAllocation == model.FairShare {
			k.share = s.headShare(tm, i, t.total)
		}
		// Neither e's afterTry nor t's (tries counts the passes already
		// made, not e) nor t's settle may check.
		room := st.tries[i]+2 < st.next[i] && se.cycle == s.cycle && i < len(se.tries) && se.tries[i]+1 < se.due[i]
		if room && (s.breakPassOrder || len(*h) == 0 || (heads{k, (*h)[0]}).less(0, 1)) {
			if v, ok := s.passVerdict(t); ok {
				se.tries[i]++
				st.tries[i]++
				s.tried++
				s.passed++
				s.cc.payback, s.cc.inQuota = nil, v.inQuota
				t.wait = v.wait
				continue
			}
		}
		h.push(k)
		st.live[i]++
		return
	}
}

// passVerdict returns t's quota verdict when its try would be a refusal
// that changes nothing but t's reason (see above).
func (s *Scheduler) passVerdict(t *task) (quotaVerdict, bool) {
	tm, it, p := t.team, t.typ, &s.policy
	if s.now.Before(t.notBefore) || t.sel != "" || t.holds() || it.index.atLeast(0) == 0 {
		return quotaVerdict{}, false
	}
	if p.Preemption == model.PreemptImmediate && s.rankPreemption(tm) {
		return quotaVerdict{}, false
	}
	if delay := p.PreemptionDelaySeconds; delay > 0 &&
		s.now.Before(t.pendingSince.Add(time.Duration(delay*float64(time.Second)))) {
		return quotaVerdict{}, false
	}
	v := s.checkQuota(tm, it.idx, t.total)
	if v.ok {
		return v, false
	}
	borrowing := !s.settled(tm, it.idx).LessEq(tm.quota[it.idx])
	if (v.inQuota || (!borrowing && s.rankPreemption(tm))) && !s.memoSkips(t, modeGuaranteed) {
		return v, false
	}
	if !v.inQuota && tm.spec.Lending.Borrows() && !s.memoSkips(t, modeBorrow) {
		return v, false
	}
	return v, true
}

// memoSkips reports whether tryPreempt's memo skips t's search in mode.
func (s *Scheduler) memoSkips(t *task, mode preemptMode) bool {
	if s.breakPass {
		return true
	}
	f, ok := s.cc.failed[s.taskKey(t, mode)]
	return ok && f.covers(t)
}
