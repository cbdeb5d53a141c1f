package core

import (
	"cmp"
	"slices"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// sortQueue orders a team's queue: higher rank first (TaskRanking only; all
// ranks are 0 otherwise), then earlier submit time, then submission order. It
// drops entries that are no longer pending.
func sortQueue(tm *team) {
	if tm.queueSorted {
		return
	}
	if tm.tailOnly && (appendSorted(tm) || insertTail(tm)) {
		tm.queueSorted, tm.tailOnly = true, false
		return
	}
	tm.tailOnly = false
	q := tm.pending[:0]
	for _, t := range tm.pending {
		if t.state == pending {
			q = append(q, t)
		} else {
			t.queued = false
		}
	}
	for k := len(q); k < len(tm.pending); k++ {
		tm.pending[k] = nil
	}
	tm.pending, tm.stale = q, 0
	sortTasks(q)
	tm.queueSorted = true
	tm.sortedLen = len(q)
	splitByType(tm)
}

// dropped records that an admission took a task out of tm's queue. Its
// entry stays, stale, in pending and byType (every reader skips tasks no
// longer pending), as the order of the rest is unchanged: the cycle that
// admitted thousands does not sort thousands of queues again. Stale entries
// go with the next full sort, forced once they are half the list.
func (tm *team) dropped(t *task) {
	if i := t.typ.idx; i < len(tm.aggs) && tm.aggs[i].folded > 0 && !tm.aggs[i].loose &&
		!tm.breakCount && tm.aggs[i].at.leave(&tm.aggs[i], t) {
		tm.aggs[i].loose = true // its bounds may tighten without t (aggcount.go)
	}
	if tm.stale++; 2*tm.stale > len(tm.pending) {
		tm.unsort()
	}
}

// unsort records a change of tm's queue other than tasks queued at its end:
// a task left it, or an order key changed. The next sort is a full one.
func (tm *team) unsort() {
	tm.queueSorted, tm.tailOnly = false, false
}

// appendSorted files the tasks queued since the last sort, when that is all
// that changed (tailOnly) and, sorted, they all come after the queue's last
// task: new submissions, usually. It costs the new tasks, not the queue. It
// reports false, with the queue as it was but its new tail sorted, when a
// full sort is needed.
func appendSorted(tm *team) bool {
	if len(tm.byType) != len(tm.quota) || tm.sortedLen > len(tm.pending) {
		return false
	}
	tail := tm.pending[tm.sortedLen:]
	for _, t := range tail {
		if t.state != pending {
			return false
		}
	}
	sortTasks(tail)
	if len(tail) > 0 && tm.sortedLen > 0 && !queueLess(tm.pending[tm.sortedLen-1], tail[0]) {
		return false
	}
	for _, t := range tail {
		tm.byType[t.typ.idx] = append(tm.byType[t.typ.idx], t)
	}
	tm.sortedLen = len(tm.pending)
	foldAggs(tm)
	return true
}

// fileNew files t, just queued at the end of its team's queue, when the
// queue was sorted and t comes after its last task (a submission, usually):
// what appendSorted would do at the next sort, done now, while t is in the
// processor's cache, so that a cycle after many submissions does not read
// each of them once more to file it.
func fileNew(t *task) {
	tm := t.team
	n := len(tm.pending)
	if n == 1 { // the queue holds t alone: it is sorted
		tm.stale = 0
		splitByType(tm)
		tm.sortedLen = 1
		tm.queueSorted, tm.tailOnly = true, false
		return
	}
	if !tm.tailOnly || tm.sortedLen != n-1 || len(tm.byType) != len(tm.quota) ||
		(n > 1 && !queueLess(tm.pending[n-2], t)) {
		return
	}
	i := t.typ.idx
	tm.byType[i] = append(tm.byType[i], t)
	tm.agg(i)
	tm.sortedLen = n
	tm.queueSorted, tm.tailOnly = true, false
}

// splitByType rebuilds tm's per-type queues from its sorted queue.
func splitByType(tm *team) {
	n := len(tm.quota)
	if len(tm.byType) != n {
		tm.byType, tm.cursors = make([][]*task, n), make([]int, n)
	}
	for i := range tm.byType {
		if tm.isViewed(i) { // a deferred view keeps the old array (deferview.go)
			tm.byType[i], tm.viewed[i] = make([]*task, 0, cap(tm.byType[i])), false
			continue
		}
		clear(tm.byType[i])
		tm.byType[i] = tm.byType[i][:0]
	}
	tm.invalidateAggs()
	tm.lists++         // positions move (stopwake.go)
	clear(tm.liveFrom) // the lists are rebuilt (livestart.go)
	for _, t := range tm.pending {
		i := t.typ.idx
		tm.byType[i] = append(tm.byType[i], t)
	}
	foldAggs(tm)
}

// foldAggs brings tm's per-type aggregates (stop.go) up to date while the
// tasks just filed are still in the processor's cache: folded later, in the
// cycle's stop check, a deep queue costs a cache miss per task.
func foldAggs(tm *team) {
	for i := range tm.byType {
		tm.agg(i)
	}
}

// sortTasks sorts ts by queueLess, a strict total order (so any sort gives
// the same result). A queue is usually sorted already or nearly (tasks are
// queued in submission order): one pass finds out.
func sortTasks(ts []*task) {
	if slices.IsSortedFunc(ts, queueCmp) {
		return
	}
	slices.SortFunc(ts, queueCmp)
}

// queueCmp is queueLess as a three-way comparison.
func queueCmp(x, y *task) int {
	if x.rank != y.rank {
		return cmp.Compare(y.rank, x.rank)
	}
	if c := x.spec.SubmitTime.Compare(y.spec.SubmitTime); c != 0 {
		return c
	}
	return cmp.Compare(x.seq, y.seq)
}

func queueLess(x, y *task) bool {
	if x.rank != y.rank {
		return x.rank > y.rank
	}
	if !x.spec.SubmitTime.Equal(y.spec.SubmitTime) {
		return x.spec.SubmitTime.Before(y.spec.SubmitTime)
	}
	return x.seq < y.seq
}

// head is a team's next task of one instance type, keyed for the cycle's
// global order.
type head struct {
	tm      *team
	i       int // the instance type
	t       *task
	borrows bool    // admitting it would exceed the team's quota
	share   float64 // the team's weighted share with t admitted, under FairShare
}

// heads is the cycle's order across teams: every task that fits its team's
// quota (guaranteed) before any that borrows; borrowers by lowest weighted
// share (counting the task itself, as Kueue does) under FairShare; then rank, submit time and submission order.
type heads []head

func (h heads) less(a, b int) bool {
	x, y := h[a], h[b]
	if x.borrows != y.borrows {
		return !x.borrows
	}
	if x.borrows && x.share != y.share {
		return x.share < y.share
	}
	return queueLess(x.t, y.t)
}

// push and pop keep h a binary min-heap by less (a typed container/heap:
// no boxing of each head).
func (h *heads) push(e head) {
	*h = append(*h, e)
	q := *h
	for c := len(q) - 1; c > 0; {
		p := (c - 1) / 2
		if !q.less(c, p) {
			break
		}
		q[c], q[p] = q[p], q[c]
		c = p
	}
}

func (h *heads) pop() head {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	q.down(0)
	*h = q
	return top
}

// down moves the entry at p down until neither child is less than it.
func (h heads) down(p int) {
	for {
		c := 2*p + 1
		if c >= len(h) {
			return
		}
		if r := c + 1; r < len(h) && h.less(r, c) {
			c = r
		}
		if !h.less(c, p) {
			return
		}
		h[c], h[p] = h[p], h[c]
		p = c
	}
}

// pushNext advances tm's cursor for type i to its next task of that type that
// this cycle has not yet handled and pushes it, keyed by what admitting it
// would mean now. One head per team and type: a team's tasks of one type
// never wait behind its tasks of another, which use other resources.
func (s *Scheduler) pushNext(h *heads, tm *team, i int) {
	q := tm.byType[i]
	for tm.cursors[i] < len(q) {
		t := q[tm.cursors[i]]
		tm.cursors[i]++
		if t.state != pending || t.touchedIn == s.cycle {
			continue
		}
		e := head{tm: tm, i: i, t: t, borrows: !tm.usage[i].Add(t.total).LessEq(tm.quota[i])}
		if e.borrows && s.policy.IdleComputeAllocation == model.FairShare {
			e.share = s.headShare(tm, i, t.total)
		}
		h.push(e)
		s.stops.live[i]++
		return
	}
}

// collectWaiting lists every pending task, team by team in queue order.
func (s *Scheduler) collectWaiting() []model.Waiting {
	n := 0
	for _, tm := range s.teams {
		sortQueue(tm)
		n += len(tm.pending)
	}
	out := make([]model.Waiting, 0, n)
	m := fitMemo{}
	for _, tm := range s.teams {
		pos := 0
		for _, t := range tm.pending {
			if t.state != pending {
				continue
			}
			pos++
			out = append(out, model.Waiting{Task: t.spec.Name, Team: tm.spec.Name, Position: pos, Reason: t.reason()})
			s.fillFit(t, &out[len(out)-1].Reason, m) // waitshown.go
		}
	}
	return out
}

func secs(n int64) time.Duration { return time.Duration(n) * time.Second }
