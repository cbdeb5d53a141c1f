package core

import (
	"fmt"
	"time"

	"github.com/taskgov/taskgov/internal/resource"
)

// Counting the tasks at each bound of a list's aggregate (queueAgg).
//
// A task that leaves a kept queue (an admission, a cancel: dropped) leaves
// its list's bounds valid but maybe looser than the pending tasks need, and
// a bound that stays loose weakens the early stop. Until this file, a task
// that stood at any bound marked the aggregate loose, and the next read
// folded the whole list again from liveFrom. In nearly every queue some bound
// is shared by many tasks (the smallest gang, the 8-GPU maximum, a common
// submit time), so nearly every admission did: one pass over a team's list
// per admission (the one-input regression of session 10, a pass over
// several teams' lists of 500 tasks in the cycle after a node failure).
//
// attainers counts, for each bound, the tasks folded in that stand at it:
// a fold that moves a bound counts 1, one that meets it adds 1; a task that
// leaves and meets a bound takes 1 off, and the aggregate is loose only
// once a count reaches zero: the last task at that bound left. The bounds
// a fold from scratch would give are then the same as the refold on every
// such departure gave, so the stop's checks read the same bounds. A
// departure counted that was never folded in (its entry not read yet) only
// brings a fold sooner; a fold from scratch (agg) starts the counts again.
//
// One bound is left loose until read: the latest pendingSince (maxPS), read
// only under a preemption delay. A requeued task (a victim, a failed node's
// task) is the latest in its list, alone, until it starts again; folding the
// list again each time, in the cycle after a node failure, cost 2 ms of the
// 3 in the one-input benchmark. Its count at zero (or below) marks it loose,
// and its readers take it from tightPS, which folds again then. A fold that
// meets or passes a loose maxPS makes it exact again (count 1 or more).
//
// Counts below the true ones only bring a fold sooner; counts above would
// keep a loose bound, weaken the stop and add tries. checkAgg (from
// CheckInvariants) compares every aggregate with a fold from scratch, and
// breakCount (a departure taken off no count) is its injected bug.
type attainers struct {
	minTotal, maxTotal, minPod [3]int32
	maxGPUs, minKey, minNodes  int32
	minPS, maxPS, maxNB        int32
	minReq, sel                int32
}

// first starts the counts at t, the aggregate's only task.
func (c *attainers) first(t *task) {
	one := [3]int32{1, 1, 1}
	*c = attainers{minTotal: one, maxTotal: one, minPod: one, maxGPUs: 1, minKey: 1, minNodes: 1,
		minPS: 1, maxPS: 1, maxNB: 1, minReq: 1}
	if t.sel != "" {
		c.sel = 1
	}
}

// fold counts t against a's bounds before they fold t in (k: keyFor(t)).
func (c *attainers) fold(a *queueAgg, t *task, k int) {
	sh := &a.shape
	countVec(&c.minTotal, a.minTotal, t.total, -1)
	countVec(&c.maxTotal, sh.maxTotal, t.total, 1)
	countVec(&c.minPod, sh.minPod, t.pod, -1)
	count(&c.maxGPUs, a.maxGPUs, t.total.GPUs, 1)
	count(&c.minKey, int64(a.minKey), int64(k), -1)
	count(&c.minNodes, int64(a.minNodes), int64(t.spec.Nodes), -1)
	count(&c.minReq, int64(sh.minReq), int64(t.reqLevel), -1)
	countTime(&c.minPS, a.minPS, t.pendingSince, -1)
	countTime(&c.maxPS, a.maxPS, t.pendingSince, 1)
	countTime(&c.maxNB, a.maxNB, t.notBefore, 1)
	if t.sel != "" {
		c.sel++
	}
}

// leave takes t, leaving the queue, off the counts of the bounds it meets
// and reports whether a count reached zero (the aggregate is loose).
func (c *attainers) leave(a *queueAgg, t *task) bool {
	sh := &a.shape
	z := leaveVec(&c.minTotal, a.minTotal, t.total)
	z = leaveVec(&c.maxTotal, sh.maxTotal, t.total) || z
	z = leaveVec(&c.minPod, sh.minPod, t.pod) || z
	z = leaveOne(&c.maxGPUs, a.maxGPUs == t.total.GPUs) || z
	z = leaveOne(&c.minKey, a.minKey == keyFor(t)) || z
	z = leaveOne(&c.minNodes, a.minNodes == t.spec.Nodes) || z
	z = leaveOne(&c.minReq, sh.minReq == t.reqLevel) || z
	z = leaveOne(&c.minPS, a.minPS.Equal(t.pendingSince)) || z
	z = leaveOne(&c.maxNB, a.maxNB.Equal(t.notBefore)) || z
	leaveOne(&c.maxPS, a.maxPS.Equal(t.pendingSince)) // read by tightPS
	return leaveOne(&c.sel, t.sel != "") || z
}

// tightPS returns tm's aggregate of type i with its latest pendingSince
// exact (folded again if it was loose, see above).
func (tm *team) tightPS(i int) *queueAgg {
	a := tm.agg(i)
	if a.folded > 0 && a.at.maxPS <= 0 {
		a.loose = true
		a = tm.agg(i)
	}
	return a
}

// count counts v against bound b, a minimum (dir -1) or a maximum (dir 1).
func count(c *int32, b, v int64, dir int64) {
	switch d := (v - b) * dir; {
	case d > 0:
		*c = 1
	case d == 0:
		*c++
	}
}

func countVec(c *[3]int32, b, v resource.Vector, dir int64) {
	count(&c[0], b.GPUs, v.GPUs, dir)
	count(&c[1], b.MilliCPU, v.MilliCPU, dir)
	count(&c[2], b.MemMiB, v.MemMiB, dir)
}

func countTime(c *int32, b, v time.Time, dir int64) {
	count(c, 0, int64(v.Compare(b)), dir)
}

// leaveOne takes one off c when at (the task meets the bound) and reports
// whether c reached zero.
func leaveOne(c *int32, at bool) bool {
	if !at {
		return false
	}
	*c--
	return *c <= 0
}

func leaveVec(c *[3]int32, b, v resource.Vector) bool {
	z := leaveOne(&c[0], b.GPUs == v.GPUs)
	z = leaveOne(&c[1], b.MilliCPU == v.MilliCPU) || z
	return leaveOne(&c[2], b.MemMiB == v.MemMiB) || z
}

// checkAgg checks the aggregate of tm's list of type i from scratch (a
// test's check, from checkQueues): unless it is to be folded again, its
// bounds are those of the pending tasks among the entries it read, and no
// count is above the number of those tasks at its bound (a count above it
// would keep a loose bound).
func (tm *team) checkAgg(i int) error {
	a, q := &tm.aggs[i], tm.byType[i]
	if a.n < 0 || a.n > len(q) || a.loose || a.folded == 0 {
		return nil
	}
	var f queueAgg
	for _, t := range q[:a.n] {
		if t.state == pending {
			f.foldOne(t)
		}
	}
	switch {
	case f.folded == 0:
		return fmt.Errorf("the aggregate keeps the bounds of %d tasks, none of them pending", a.folded)
	case a.at.maxPS <= 0 && a.maxPS.Before(f.maxPS):
		return fmt.Errorf("the aggregate's loose latest pendingSince is before its pending tasks'")
	case !sameBounds(a, &f):
		return fmt.Errorf("the aggregate's bounds are not those of its pending tasks")
	case !countsAtMost(&a.at, &f.at):
		return fmt.Errorf("the aggregate counts %+v tasks at its bounds, its pending tasks %+v", a.at, f.at)
	}
	return nil
}

func sameBounds(a, b *queueAgg) bool {
	return a.minTotal == b.minTotal && a.maxGPUs == b.maxGPUs && a.minKey == b.minKey && a.minNodes == b.minNodes &&
		a.minPS.Equal(b.minPS) && (a.at.maxPS <= 0 || a.maxPS.Equal(b.maxPS)) && a.maxNB.Equal(b.maxNB) && a.shape == b.shape
}

func countsAtMost(a, b *attainers) bool {
	for k := range 3 {
		if a.minTotal[k] > b.minTotal[k] || a.maxTotal[k] > b.maxTotal[k] || a.minPod[k] > b.minPod[k] {
			return false
		}
	}
	return a.maxGPUs <= b.maxGPUs && a.minKey <= b.minKey && a.minNodes <= b.minNodes && a.minPS <= b.minPS &&
		a.maxPS <= b.maxPS && a.maxNB <= b.maxNB && a.minReq <= b.minReq && a.sel <= b.sel
}
