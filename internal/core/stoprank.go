package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// The early stop under rank preemption (stop.go's bounds, for a team whose
// higher-priority tasks may preempt its lower-priority ones).
//
// Under TaskRanking with PreemptTeamTasks LowerPriority, a tail task t may
// search its own team's running tasks of lower rank (candidates: those of
// rank below t's not started or preempted in this cycle; priorityVictim
// spares none under Payback). The check used to refuse every such team.
// Under preemption Payback it need not, by what a search does with them
// (tryPreempt):
//   - every search runs on cheap candidates only (cheapVictims), and the
//     guarantee's second search (reclaimPass) keeps own candidates only when
//     cheap; so an own candidate that is not cheap is never searched. It only
//     makes cheapVictims report one that is dear, and the try mark the type
//     unpaid (markUnpaid);
//   - an own candidate turns cheap only by a checkpoint (an input, which
//     walks the type when it is marked unpaid) or a restart: riskedWork only
//     grows with the cost clock, so one that is dear at S stays dear until
//     the type's next walk.
// So when every own candidate of the team's tail is dear at the cost clock
// and the type is already marked unpaid, the tail's searches see the
// candidates they would see without rank preemption, and their tries change
// what they would change then: the rest of the check (stop.go) bounds that.
// The candidates of the tail are those below the rank of its first task: a
// team's byType list is sorted, higher rank first (sortQueue), and the tail
// is the list from the team's head on. An own candidate is cheap for a
// minute or two after each start or checkpoint; the tail tasks above it
// (which may take it) are bounded one by one instead (ownCheapFail): the
// memo skips their searches, or each fails at its quota or room bound, and
// the stop asks for the cost clock's next tick when one of them searches.
//
// One more search comes with rank preemption: a team that does not borrow
// (its usage before this cycle's admissions within its quota: preemptFor)
// searches within quota for a task that would borrow too, with other teams'
// borrowed tasks as candidates. Its quota bound (quotaWithout) takes off only
// the team's own candidates it searches, the cheap ones, so with none such a
// search fails there, changing nothing but the memo, after asking for the
// cost clock's next tick (when a candidate is cheap) and marking the type
// unpaid (when one is dear). The check wants the type marked unpaid and its
// wake-up collected at or before the next tick whenever another team has a
// reclaimable task.
//
// Under preemption Immediate own candidates are taken at any cost: a team
// with rank preemption still blocks the stop. breakStopRank (test only)
// takes the searches of tail tasks with own cheap candidates as failing,
// the injected bug the differential test must catch
// (TestDifferentialCatchesBrokenStopRank); breakStopTick leaves out the
// tick the stop asks for (TestDifferentialCatchesBrokenStopTick).

// rankBlocks reports whether tm's tail in type c.i, with rank preemption,
// may search its own team's work or make a within-quota search the rest of
// the check does not bound.
func (s *Scheduler) rankBlocks(tm *team, c *stopCheck) bool {
	if s.policy.Preemption != model.PreemptPayback || newerEqual(tm) {
		return true // own candidates at any cost, or of t's class too (ownvictim.go)
	}
	i := c.i
	top, ok := s.tailTopRank(tm, i)
	if !ok {
		return false // no tail
	}
	unpaid := i < len(s.unpaid) && s.unpaid[i]
	sc := s.rankScanOf(tm, i)
	if sc.minRank < top && !unpaid {
		return true // an own candidate, which marks the type unpaid
	}
	cheap := s.stops.ownCheap[:0]
	for _, v := range sc.cheap {
		if v.rank < top {
			cheap = append(cheap, v)
		}
	}
	s.stops.ownCheap = cheap
	if len(cheap) > 0 {
		asks, ok := s.ownCheapFail(tm, i, c, cheap)
		if !ok {
			return true
		}
		if asks && !s.breakStopTick {
			// A tail try searches its own cheap candidates: it asks for
			// the cost clock's next tick, and so does the stop.
			if t := s.nextTick(); t.Before(c.wake) {
				c.wake = t
			}
		}
	}
	if !s.settled(tm, i).LessEq(tm.quota[i]) {
		return false // it borrows: it searches within quota only for a task in quota, as without rank preemption
	}
	if c.bor.othersThan(tm) && tm.spec.ReclaimWithinGroup != model.ReclaimNever {
		return !unpaid || s.nextTick().Before(minTime(c.cur, c.wake))
	}
	return false
}

// minTime is the earlier of a and b.
func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// rankScan is how far ownCheapFail read tm's tail of one type, at the
// cycle, walk generation (stopState.gen: no admission, preemption or hold
// since, so usage, the candidates and the cost clock stand), tail start
// and memo entries it read them with.
type rankScan struct {
	cycle, gen uint64
	from       int
	g, b       failedAttempt
	hasG, hasB bool
	pos        int   // tasks before pos are read
	asks       bool  // one of them searches (the memo does not skip it)
	stuck      bool  // the task at pos fails the bound
	reach      []int // reachWithout's answer, once needed
	// The team's running tasks of the type not touched in the cycle, as
	// of runCycle and runGen: their lowest rank, and those cheap at the
	// cost clock.
	runCycle, runGen uint64
	minRank          int
	cheap            []*task
}

// rankScanOf returns tm's scan state for type i, its running tasks' part
// brought up to the cycle and generation.
func (s *Scheduler) rankScanOf(tm *team, i int) *rankScan {
	st := &s.stops
	if len(st.rankScans[i]) != len(s.teams) {
		st.rankScans[i] = make([]rankScan, len(s.teams))
	}
	sc := &st.rankScans[i][tm.idx]
	if sc.runCycle != s.cycle || sc.runGen != st.gen {
		sc.runCycle, sc.runGen = s.cycle, st.gen
		sc.minRank, sc.cheap = int(^uint(0)>>1), sc.cheap[:0]
		at := s.costClock()
		for _, v := range tm.run[i] {
			if v.touchedIn == s.cycle {
				continue
			}
			sc.minRank = min(sc.minRank, v.rank)
			if s.cheap(v, at) {
				sc.cheap = append(sc.cheap, v)
			}
		}
	}
	return sc
}

// ownCheapFail bounds the tries of tm's tail tasks that have own cheap
// candidates, and reports whether one of them searches (asks) and whether
// the bound holds (ok). cheap holds the team's own cheap running tasks
// below the tail's first rank. A tail task t has own cheap candidates when
// its rank is above the lowest of theirs; the list is sorted, higher rank
// first, so those tasks lead the tail, and the scan ends at the first that
// is not above.
//
// Tried in queue order at S, those leading tasks first find their searches
// skipped by the team's failed-search memo as it is at S (stopskip.go's
// covers, for each mode preemptFor searches), which changes nothing; the
// first one not skipped searches: its candidates include a cheap one, so it
// asks for the next tick of the cost clock (tryPreempt), and its failure,
// if it fails, rewrites the memo, so every later one may search too. Each
// that may search must fail, whatever its other candidates: with C every
// own cheap task and every other team's reclaimable task of the type
// (cycleBorrowed, a superset of any search's other candidates),
//   - a within-quota search (t fits its team's quota, or the team does not
//     borrow: preemptFor) fails at quotaWithout when the team's usage plus
//     t less every own cheap task exceeds its quota (quotaWithout takes off
//     only own candidates, a subset), or at roomBound when fewer nodes than
//     t's gang would reach t's bucket with all of C gone;
//   - a borrowing search fails at roomBound by the same count.
//
// A failed search writes the team's memo (the deferred tries replay it in
// order), and marks the type unpaid (already set: rankBlocks). Searching is
// certain only where nothing before it stops the try: the type has nodes,
// the task has no node selector and, under a preemption delay, is ready; a
// task that fails one of these stops the bound (not ok). The scan keeps its
// place while what it read stands.
func (s *Scheduler) ownCheapFail(tm *team, i int, c *stopCheck, cheap []*task) (asks, ok bool) {
	st := &s.stops
	from := max(tm.cursors[i]-1, 0)
	g, hasG := s.cc.failed[plainKey(tm.idx, i, modeGuaranteed)]
	b, hasB := s.cc.failed[plainKey(tm.idx, i, modeBorrow)]
	sc := s.rankScanOf(tm, i)
	if sc.cycle != s.cycle || sc.gen != st.gen || sc.from != from || sc.g != g || sc.b != b || sc.hasG != hasG || sc.hasB != hasB {
		sc.cycle, sc.gen, sc.from, sc.g, sc.b, sc.hasG, sc.hasB = s.cycle, st.gen, from, g, b, hasG, hasB
		sc.pos, sc.asks, sc.stuck, sc.reach = from, false, false, nil
	}
	if sc.stuck {
		return false, false
	}
	low := cheap[0].rank
	var own resource.Vector
	for _, v := range cheap {
		low = min(low, v.rank)
		own = own.Add(v.total)
	}
	q := tm.byType[i]
	use, quota := tm.usage[i], tm.quota[i]
	guaranteedAll := s.settled(tm, i).LessEq(quota) // the team does not borrow: every task searches within quota (preemptFor)
	borrows := tm.spec.Lending.Borrows()
	var delay time.Duration
	if d := s.policy.PreemptionDelaySeconds; d > 0 {
		delay = time.Duration(d * float64(time.Second))
	}
	nodes := s.types[i].index.atLeast(0) > 0
	for ; sc.pos < len(q); sc.pos++ {
		t := q[sc.pos]
		if t.state != pending || t.touchedIn == s.cycle {
			continue
		}
		if t.rank <= low {
			return sc.asks, true // no own cheap candidate for it, nor for the rest
		}
		in := use.Add(t.total).LessEq(quota)
		gs, bs := in || guaranteedAll, !in && borrows
		if !sc.asks && t.sel == "" && (!gs || (hasG && g.covers(t))) && (!bs || (hasB && b.covers(t))) {
			continue // the memo skips its searches
		}
		if t.sel != "" || !nodes || s.now.Before(t.pendingSince.Add(delay)) {
			sc.stuck = true
			return false, false
		}
		sc.asks = true
		if s.breakStopRank {
			continue // test only: its searches are not bounded
		}
		if sc.reach == nil {
			sc.reach = s.reachWithout(i, cheap, c.bor.list)
		}
		k := keyFor(t)
		room := k < len(sc.reach) && sc.reach[k] >= t.spec.Nodes
		if (gs && room && use.Add(t.total).Sub(own).LessEq(quota)) || (bs && room) {
			sc.stuck = true
			return false, false
		}
	}
	return sc.asks, true
}

// reachWithout counts, per bucket k, the schedulable nodes of type i whose
// key would reach k with every task of own and others gone (roomBound's
// bound over all of them at once, as cheapReach's).
func (s *Scheduler) reachWithout(i int, own, others []*task) []int {
	it := s.types[i]
	ix := &it.index
	gain := map[int32]int{}
	for _, list := range [][]*task{own, others} {
		for _, v := range list {
			for _, p := range v.pods {
				n := s.nodes[p.node]
				if ix.key[n.pos] >= 0 {
					gain[p.node] += it.needKey(v.podOn(n))
				}
			}
		}
	}
	return s.reachAfter(ix, gain)
}

// tailTopRank is the rank of the first task of tm's tail of type i (the
// highest of the tail's), and whether it has one. The tail starts at the
// team's head, one before its cursor (pushNext); for a team whose list the
// walk used up, the last task tried stands in for it (a bound, as high).
func (s *Scheduler) tailTopRank(tm *team, i int) (int, bool) {
	if len(tm.byType) <= i {
		return 0, false
	}
	q := tm.byType[i]
	for _, t := range q[max(tm.cursors[i]-1, 0):] {
		if t.state == pending && t.touchedIn != s.cycle {
			return t.rank, true
		}
	}
	return 0, false
}
