package core

import (
	"slices"
	"sort"
)

// Filing returning tasks in place instead of sorting the queue again.
//
// A preemption victim (or a task failed and requeued, or resumed) whose
// entry a full sort had dropped comes back at the end of its team's queue
// (enqueue), out of order: appendSorted then refuses the tail, and the next
// sort was a full one, reading, sorting, splitting and folding the team's
// whole queue again, and dropping the next victims' entries with the stale
// ones. At 30,000 jobs of the deep-backlog replay that was about one full
// sort per preemption (27,583 for 23,503).
//
// The queue's filed part, stale entries included, is in queueLess order and
// its keys do not change while it stays sorted (a key change unsorts it), so
// a task queued since the last sort has one place in it, found by binary
// search. insertTail merges a short tail into the filed part and inserts
// each task into its per-type list, and keeps what the lists carry across
// cycles true:
//   - liveFrom[i] (no pending entry before it, livestart.go): a task
//     inserted before it moves it back to the task's place; after it, the
//     entries before it are unchanged.
//   - the list's aggregate (stop.go, aggcount.go), which has read the first
//     n entries: a task inserted among them is folded in and n counts its
//     entry; one inserted at or after n is read with the rest.
//
// The stale entries stay (dropped forces a full sort once they are half the
// list); the lists' aggregates still hold only the pending tasks' bounds
// (aggcount.go; checkAgg checks it). Cursors and the stop check's scans are per cycle
// and set after the sort. checkQueues (CheckInvariants) checks the order,
// the lists, liveFrom and the bounds from scratch after every cycle of the
// randomized tests; breakInsert (the task's place found one entry too far)
// is its injected bug.

// maxInsert is the longest tail insertTail files; a longer one (a node
// failure's victims, many resumed tasks) is sorted with the rest.
const maxInsert = 32

// insertTail files the tasks queued since the last sort in their places and
// reports true, or reports false, changing nothing but the tail's order,
// when a full sort is needed (a tail task no longer pending, a long tail,
// lists not built).
func insertTail(tm *team) bool {
	n0 := tm.sortedLen
	if len(tm.byType) != len(tm.quota) || n0 > len(tm.pending) {
		return false
	}
	tail := tm.pending[n0:]
	if len(tail) > maxInsert {
		return false
	}
	for _, t := range tail {
		if t.state != pending {
			return false
		}
	}
	sortTasks(tail)
	var buf [maxInsert]*task
	m := copy(buf[:], tail)
	// Merge from the end: the filed entries after each tail task move up
	// by the number of tail tasks not yet placed.
	q := tm.pending
	r := n0 // q[:r] is the filed part not yet moved
	for j := m - 1; j >= 0; j-- {
		t := buf[j]
		p := tm.place(q[:r], t)
		copy(q[p+j+1:], q[p:r])
		q[p+j] = t
		r = p
	}
	for _, t := range buf[:m] {
		i := t.typ.idx
		tm.ownList(i, 1) // a deferred view keeps the old array (deferview.go)
		l := tm.byType[i]
		k := tm.place(l, t)
		tm.byType[i] = slices.Insert(l, k, t)
		if i < len(tm.liveFrom) && k < tm.liveFrom[i] {
			tm.liveFrom[i] = k
		}
		if i < len(tm.aggs) {
			if a := &tm.aggs[i]; k < a.n {
				a.foldOne(t)
				a.n++
			}
		}
	}
	tm.sortedLen = len(tm.pending)
	tm.inserts++
	tm.lists++ // positions move (stopwake.go)
	return true
}

// place returns where t goes in l, sorted by queueLess: after every entry
// that comes before it.
func (tm *team) place(l []*task, t *task) int {
	k := sort.Search(len(l), func(k int) bool { return queueLess(t, l[k]) })
	if tm.breakInsert && k < len(l) {
		k++
	}
	return k
}
