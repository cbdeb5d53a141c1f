package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// The fair-share wake-ups of a stopped walk's tail (the early stop, stop.go).
//
// Under FairShare with rebalancing, a borrowing search (modeBorrow) lists
// other teams' borrowed tasks of its team's group as candidates; one that
// has not yet run the policy's minimum runtime is left out, and the search
// asks for a wake-up when it will have (candidates). The check used to
// refuse a borrowing team whenever any reclaimable task of the type became
// ready before the wake-up the walk had collected. Instead it computes what
// the team's tail asks for:
//   - the wake-up is the earliest ready time over the type's reclaimable
//     tasks (cycleBorrowed, the list candidates reads) of other teams of the
//     team's group, the same for every task of the tail (with
//     reclaimWithinGroup Never there are none; with LowerPriority the set
//     depends on the task's rank, and the check still refuses);
//   - a tail try asks for it exactly when it reaches a borrowing search:
//     the task does not fit its team's quota and the team borrows, the
//     failed-search memo does not skip the search, and nothing before it
//     ends the try (the check already wants no task backing off and none
//     admitted; here also nodes in the type, no node selector and, under a
//     preemption delay, the task ready). Tried in queue order at S, the
//     tail's tasks whose borrowing search the memo as it is at S skips
//     write nothing to that memo, so the first that is not skipped
//     searches; tailBorrowSearch finds it.
// The stop then asks for that wake-up itself (if it comes before the
// collected one), as for the tail's starvation dues (stopwake.go). Whether
// the searches change anything else the rest of the check bounds as
// before. breakStopFair (test only) leaves the wake-up out, the injected
// bug the differential test must catch (TestDifferentialCatchesBrokenStopFair).

// fairWakeBlocks reports whether tm's tail of type c.i may ask for a
// fair-share wake-up the check cannot compute; if it can, and the tail asks
// for one before the collected wake-up, it folds it into c.wake.
func (s *Scheduler) fairWakeBlocks(tm *team, c *stopCheck) bool {
	i := c.i
	w := never
	if tm.spec.ReclaimWithinGroup != model.ReclaimNever {
		minRun := secs(*s.policy.FairShareMinRuntimeSeconds)
		for _, v := range c.bor.list {
			if v.team == tm || v.team.group != tm.group {
				continue
			}
			if ready := v.startedAt.Add(minRun); s.now.Before(ready) && ready.Before(w) {
				w = ready
			}
		}
	}
	if !w.Before(c.cur) {
		return false // at or after the collected wake-up: it changes nothing
	}
	if tm.spec.ReclaimWithinGroup == model.ReclaimLowerPriority {
		return true // the candidates depend on the task's rank
	}
	asks, ok := s.tailBorrowSearch(tm, i)
	if !ok {
		return true
	}
	if asks && !s.breakStopFair && w.Before(c.wake) {
		c.wake = w
	}
	return false
}

// fairScan is how far tailBorrowSearch read tm's tail of one type, at the
// cycle, walk generation (no admission, preemption or hold since: usage
// and quota verdicts stand) and borrowing-search memo entry it read it with.
type fairScan struct {
	cycle, gen uint64
	b          failedAttempt
	hasB       bool
	pos        int // tasks before pos are read: none searches
	found      int // the position of the first task that searches, or -1
}

// tailBorrowSearch reports whether a task of tm's tail of type i reaches a
// borrowing search (asks), and whether that can be told (ok: not when the
// first task not skipped by the memo could end its try before the search).
func (s *Scheduler) tailBorrowSearch(tm *team, i int) (asks, ok bool) {
	if !tm.spec.Lending.Borrows() {
		return false, true
	}
	st := &s.stops
	if len(st.fairScans[i]) != len(s.teams) {
		st.fairScans[i] = make([]fairScan, len(s.teams))
	}
	from := max(tm.cursors[i]-1, 0)
	b, hasB := s.cc.failed[plainKey(tm.idx, i, modeBorrow)]
	sc := &st.fairScans[i][tm.idx]
	if sc.cycle != s.cycle || sc.gen != st.gen || sc.b != b || sc.hasB != hasB || (sc.found >= 0 && sc.found < from) {
		*sc = fairScan{cycle: s.cycle, gen: st.gen, b: b, hasB: hasB, pos: from, found: -1}
	}
	if sc.found >= 0 {
		return true, true
	}
	q := tm.byType[i]
	use, quota := tm.usage[i], tm.quota[i]
	var delay time.Duration
	if d := s.policy.PreemptionDelaySeconds; d > 0 {
		delay = time.Duration(d * float64(time.Second))
	}
	nodes := s.types[i].index.atLeast(0) > 0
	for sc.pos = max(sc.pos, from); sc.pos < len(q); sc.pos++ {
		t := q[sc.pos]
		if t.state != pending || t.touchedIn == s.cycle || use.Add(t.total).LessEq(quota) {
			continue // not in the tail, or it fits the quota: no borrowing search
		}
		if t.sel == "" && hasB && b.covers(t) {
			continue // the memo skips it
		}
		if t.sel != "" || !nodes || s.now.Before(t.pendingSince.Add(delay)) {
			return false, false
		}
		sc.found = sc.pos
		return true, true
	}
	return false, true
}

// fairDearOnly reports whether every other-team candidate a borrowing
// search of tm's tail can list is dear, under preemption Payback: the
// searches run on cheap candidates only (cheapVictims; a borrowing search
// has no second, any-cost pass), so with none such a search selects
// nothing, compares no shares, asks for no tick, and only marks the type
// unpaid (the check then wants it marked). Its own cheap candidates are
// stoprank.go's. A dear task turns cheap only by a checkpoint (an input,
// which walks an unpaid type) or a restart, so this holds until the type's
// next walk. breakStopDear (test only) takes cheap ones as dear too, the
// injected bug the differential test must catch.
func (s *Scheduler) fairDearOnly(tm *team, bor *borSummary) bool {
	if s.policy.Preemption != model.PreemptPayback {
		return false
	}
	return !bor.cheapOthersThan(tm) || s.breakStopDear
}
