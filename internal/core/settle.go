package core

import "github.com/taskgov/taskgov/internal/model"

// Settling a spent type in bulk.
//
// Once a type's nodes have no room left for any of its remaining pending
// tasks, no victim search of its could find a candidate and no starvation
// hold could be taken or dropped, every remaining try of the type is inert:
// it changes nothing but the task's own wait reason, its team's victim-search
// memo (keyed by team) and the type's wake-up (a minimum). The order of inert
// tries then does not matter, except within a team, where the memo is read
// and written in queue order. So the walk tries the rest of the type without
// its heap, team by team, each team's tasks in queue order: a cycle
// admitting everything that fits costs its admissions plus one plain pass
// over the rest, not a heap operation and its share computations per pending
// task.
//
// Why each remaining try is inert, when inertType and inertTask hold (tryTask
// line by line): a task backing off, on a type without nodes or without
// enough matching nodes releases a hold it does not have (no task holds
// nodes of the type) and records its reason. Otherwise its quota verdict
// reads the state; place returns at once, as fewer nodes than its gang reach
// its pod's bucket (the room check of inertTask); preemptFor may note a
// wake-up and, with no candidates (no reclaimable task of another team, no
// lower-priority task of its own it may preempt), each search fails at once,
// writing the team's memo; the starvation hold is not due (inertTask) or the
// task does not fit its quota, so nothing is reserved; no holder means no
// HeldForOther; there is no payback reason without victims; and the last
// place returns at once too (NoCapacity, as fit is below the gang).
//
// The reference (full rescan) never settles in bulk, so the differential
// test compares bulk settling with the heap's order.

// settleState keeps, per type, when the walk last asked whether the type is
// spent, so that a failed check costs no more than the tries since it.
type settleState struct {
	cycle  uint64
	tries  []int  // tries of the type since the last failed check
	due    []int  // tries needed before the next check
	avail  []int  // scratch: nodes per bucket or above
	count  uint64 // types settled in bulk (a measure)
	broken bool   // test only: skip inertType and the hold check, to prove the differential test sees it
	// test only: a team without room passes as inert past its due whether
	// or not its smallest request fits its quota.
	brokenFit bool
	// test only: settleTeam tries a strict team's tasks behind its head
	// instead of blocking them (strictfifo.go).
	brokenStrict bool
	sink         int // what settleTeam read ahead (kept, so the loads are not optimised away)
}

// minSettleTries is how many tries of a type pass before the first check.
const minSettleTries = 8

// settleRest tries e, the head just popped, and the rest of its type in
// bulk, when that type is spent (see above), and removes the type's heads
// from h. It reports whether it did; if not, nothing changed.
func (s *Scheduler) settleRest(h *heads, e head, d *model.Decision) bool {
	if s.fullRescan || s.probing {
		return false
	}
	st := &s.settle
	if st.cycle != s.cycle || len(st.tries) != len(s.types) {
		st.cycle = s.cycle
		st.tries = make([]int, len(s.types))
		st.due = make([]int, len(s.types))
		for i := range st.due {
			st.due[i] = minSettleTries
		}
	}
	i := e.i
	if st.tries[i]++; st.tries[i] < st.due[i] {
		return false
	}
	st.tries[i] = 0
	s.stops.popped = e // its tail starts at e, which is in no heap
	stop := s.stoppable(i)
	s.stops.popped = head{}
	if stop {
		// The early stop (stop.go) applies: the rest is deferred, not tried.
		s.stopType(i)
		s.deferTail(e)
		return true
	}
	if ok, cost := s.spent(*h, e); !ok {
		st.due[i] = max(minSettleTries, cost)
		return false
	}
	s.curType = i
	st.count++
	s.stops.live[i] = 0
	s.settleTeam(e.tm, i, e.t, d)
	q := (*h)[:0]
	for _, x := range *h {
		if x.i == i {
			s.settleTeam(x.tm, i, x.t, d)
		} else {
			q = append(q, x)
		}
	}
	for k := len(q); k < len(*h); k++ {
		(*h)[k] = head{}
	}
	q.init()
	*h = q
	return true
}

// settleTeam tries t, then tm's later tasks of type i in queue order,
// reading ahead (readAhead); in a strict team's queue, none after the first
// that stays pending (blockBehind, as the walk does: strictfifo.go).
func (s *Scheduler) settleTeam(tm *team, i int, t *task, d *model.Decision) {
	s.tried++
	s.tryTask(t, d)
	if blocksQueue(t) && !s.settle.brokenStrict {
		s.blockBehind(tm, i, t)
		return
	}
	q := tm.byType[i]
	for tm.cursors[i] < len(q) {
		ahead := q[tm.cursors[i]:min(tm.cursors[i]+readAhead, len(q))]
		s.readAhead(ahead)
		for _, t := range ahead {
			tm.cursors[i]++
			if t.state != pending || t.touchedIn == s.cycle {
				continue
			}
			s.tried++
			s.tryTask(t, d)
			if blocksQueue(t) && !s.settle.brokenStrict {
				s.blockBehind(tm, i, t)
				return
			}
		}
	}
}

// readAhead loads what a try reads of each of ts in a pass of independent
// loads, so that their cache misses overlap instead of each stalling a try:
// a deep queue's tasks are not in any cache. It changes nothing.
func (s *Scheduler) readAhead(ts []*task) {
	sink := 0
	for _, t := range ts {
		sink += int(t.state) + int(t.touchedIn) + t.spec.Nodes + len(t.heldNodes()) +
			int(t.total.GPUs) + t.pendingSince.Nanosecond() + t.notBefore.Nanosecond()
	}
	s.settle.sink += sink // kept, so the loads are not optimised away
}

// readAhead is how many tasks a walk over deferred or settled tries loads
// ahead of them.
const readAhead = 128

// spent reports whether every remaining try of e's type is inert, and how
// many tasks it looked at.
func (s *Scheduler) spent(h heads, e head) (bool, int) {
	i := e.i
	if !s.inertType(i) && !s.settle.broken {
		return false, 1
	}
	ix := &s.types[i].index
	avail := append(s.settle.avail[:0], make([]int, len(ix.counts))...)
	for k, n := len(ix.counts)-1, 0; k >= 0; k-- {
		n += ix.counts[k]
		avail[k] = n
	}
	s.settle.avail = avail
	looked := 0
	bound := secs(*s.policy.StarvationBoundSeconds)
	check := func(tm *team, t *task) bool {
		looked++
		if s.rankPreemption(tm) {
			for _, v := range tm.run[i] {
				if v.touchedIn != s.cycle {
					return false // an own lower-priority candidate, maybe
				}
			}
		}
		if a := tm.agg(i); a.n > 0 && (a.minKey >= len(avail) || avail[a.minKey] == 0) &&
			(s.now.Before(a.minPS.Add(bound)) || s.settle.broken || s.settle.brokenFit ||
				!tm.usage[i].Add(a.minTotal).LessEq(tm.quota[i])) {
			// Every task of the team's queue passes inertTask: no room,
			// and no due passed or no request that fits the quota (the
			// smallest does not; a larger one fits no better).
			return true
		}
		looked++
		if !s.inertTask(t, avail) {
			return false
		}
		q := tm.byType[i]
		for p := tm.cursors[i]; p < len(q); p++ {
			if t := q[p]; t.state == pending && t.touchedIn != s.cycle {
				looked++
				if !s.inertTask(t, avail) {
					return false
				}
			}
		}
		return true
	}
	if !check(e.tm, e.t) {
		return false, looked
	}
	for _, x := range h {
		if x.i == i && !check(x.tm, x.t) {
			return false, looked
		}
	}
	return true, looked
}

// inertType: no task holds nodes of type i and no other team's task there
// is reclaimable, so no search of the type has another team's candidate.
func (s *Scheduler) inertType(i int) bool {
	return s.types[i].holder == nil && len(s.cycleBorrowed(i)) == 0
}

// inertTask: t's pod fits on fewer nodes than its gang has, and its
// starvation hold is not due or it does not fit its quota (or it backs
// off). avail[k] counts
// the type's nodes with at least bucket k free.
func (s *Scheduler) inertTask(t *task, avail []int) bool {
	if s.now.Before(t.notBefore) {
		return true // backing off
	}
	if k := keyFor(t); k < len(avail) && avail[k] >= t.spec.Nodes {
		return false
	}
	if due := t.pendingSince.Add(secs(*s.policy.StarvationBoundSeconds)); s.now.Before(due) || s.settle.broken {
		return true
	}
	i := t.typ.idx
	return !t.team.usage[i].Add(t.total).LessEq(t.team.quota[i])
}

// init makes h a heap again after entries were removed.
func (h heads) init() {
	for p := len(h)/2 - 1; p >= 0; p-- {
		h.down(p)
	}
}
