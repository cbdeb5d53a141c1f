package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Settling a spent type in bulk.
//
// Once a type's nodes have no room left for any of its remaining pending
// tasks, no victim search of its could find a candidate and no starvation
// hold could be taken or dropped, every remaining try of the type is inert:
// it changes nothing but the task's own wait reason, its team's victim-search
// memo (keyed by team) and the type's wake-up (a minimum). The order of inert
// tries then does not matter, except within a team, where the memo is read
// and written in queue order. So the walk tries the rest of the type without
// its heap, each team's tasks in queue order (settleStreams): a cycle
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
	cycle   uint64
	tries   []int    // tries of the type since the last failed check
	due     []int    // tries needed before the next check
	avail   []int    // scratch: nodes per bucket or above
	count   uint64   // types settled in bulk (a measure)
	broken  bool     // test only: skip inertType and the hold check, to prove the differential test sees it
	streams []stream // scratch of settleStreams
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
	if ok, cost := s.spent(*h, e); !ok {
		st.due[i] = max(minSettleTries, cost)
		return false
	}
	s.curType = i
	st.count++
	streams := append(s.settle.streams[:0], stream{e.t.seq, e.tm, e.t})
	q := (*h)[:0]
	for _, x := range *h {
		if x.i == i {
			streams = append(streams, stream{x.t.seq, x.tm, x.t})
		} else {
			q = append(q, x)
		}
	}
	s.settleStreams(streams, i, d)
	s.settle.streams = streams[:0]
	for k := len(q); k < len(*h); k++ {
		(*h)[k] = head{}
	}
	q.init()
	*h = q
	return true
}

// stream is one team's remaining tasks of the type being settled: t is the
// next, seq its submission order.
type stream struct {
	seq uint64
	tm  *team
	t   *task
}

// settleStreams tries every stream's tasks, each team's in queue order. The
// teams are interleaved by submission order, which is about the order the
// tasks lie in memory: the pass reads memory in sequence rather than one team
// at a time. Inert tries may go in any order across teams (see above).
func (s *Scheduler) settleStreams(h []stream, i int, d *model.Decision) {
	less := func(a, b int) bool { return h[a].seq < h[b].seq }
	down := func(p int) {
		for {
			c := 2*p + 1
			if c >= len(h) {
				return
			}
			if r := c + 1; r < len(h) && less(r, c) {
				c = r
			}
			if !less(c, p) {
				return
			}
			h[c], h[p] = h[p], h[c]
			p = c
		}
	}
	for p := len(h)/2 - 1; p >= 0; p-- {
		down(p)
	}
	for len(h) > 0 {
		x := &h[0]
		s.tried++
		s.tryTask(x.t, d)
		x.t = nil
		tm := x.tm
		q := tm.byType[i]
		for tm.cursors[i] < len(q) {
			t := q[tm.cursors[i]]
			tm.cursors[i]++
			if t.state == pending && t.touchedIn != s.cycle {
				x.t, x.seq = t, t.seq
				break
			}
		}
		if x.t == nil {
			h[0] = h[len(h)-1]
			h[len(h)-1] = stream{}
			h = h[:len(h)-1]
		}
		down(0)
	}
}

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
		if sum := tm.sums[i]; sum.set && (sum.minKey >= len(avail) || avail[sum.minKey] == 0) &&
			(s.now.Before(sum.minPending.Add(bound)) || s.settle.broken) {
			return true // every task of the team's queue passes inertTask
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

// queueSummary bounds the tasks of a team's queue of one type (byType, which
// may hold tasks no longer pending): the smallest bucket a pod of theirs
// needs (keyFor) and the earliest time one was queued. It is rebuilt with
// byType, which changes only when the queue is sorted, so it holds for the
// whole cycle.
type queueSummary struct {
	set        bool
	minKey     int
	minPending time.Time
}

func (q *queueSummary) add(t *task) {
	k := keyFor(t)
	if !q.set || k < q.minKey {
		q.minKey = k
	}
	if !q.set || t.pendingSince.Before(q.minPending) {
		q.minPending = t.pendingSince
	}
	q.set = true
}

// init makes h a heap again after entries were removed.
func (h heads) init() {
	for p := len(h)/2 - 1; p >= 0; p-- {
		for c := p; ; {
			m := 2*c + 1
			if m >= len(h) {
				break
			}
			if r := m + 1; r < len(h) && h.less(r, m) {
				m = r
			}
			if !h.less(m, c) {
				break
			}
			h[c], h[m] = h[m], h[c]
			c = m
		}
	}
}
