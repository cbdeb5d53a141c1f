package core

import (
	"fmt"

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

// foldOne folds t into the aggregate (afresh while it holds no task),
// counting it at each bound it moves (1) or meets (one more).
func (a *queueAgg) foldOne(t *task) {
	k, c, sh := keyFor(t), &a.at, &a.shape
	a.folded++
	if a.folded == 1 {
		a.minTotal, a.maxGPUs, a.minKey, a.minNodes = t.total, t.total.GPUs, k, t.spec.Nodes
		a.minPS, a.maxPS, a.maxNB = t.pendingSince, t.pendingSince, t.notBefore
		*sh = shapeAgg{minPod: t.pod, maxTotal: t.total, minReq: t.reqLevel, anySel: t.sel != ""}
		one := [3]int32{1, 1, 1}
		*c = attainers{minTotal: one, maxTotal: one, minPod: one, maxGPUs: 1, minKey: 1, minNodes: 1,
			minPS: 1, maxPS: 1, maxNB: 1, minReq: 1}
		if t.sel != "" {
			c.sel = 1
		}
		return
	}
	lowVec(&a.minTotal, &c.minTotal, t.total)
	highVec(&sh.maxTotal, &c.maxTotal, t.total)
	lowVec(&sh.minPod, &c.minPod, t.pod)
	high(&a.maxGPUs, &c.maxGPUs, t.total.GPUs)
	low(&a.minKey, &c.minKey, k)
	low(&a.minNodes, &c.minNodes, t.spec.Nodes)
	low(&sh.minReq, &c.minReq, t.reqLevel)
	ps := t.pendingSince
	switch ps.Compare(a.minPS) {
	case -1:
		a.minPS, c.minPS = ps, 1
	case 0:
		c.minPS++
	}
	switch ps.Compare(a.maxPS) {
	case 1:
		a.maxPS, c.maxPS = ps, 1
	case 0:
		c.maxPS++
	}
	switch t.notBefore.Compare(a.maxNB) {
	case 1:
		a.maxNB, c.maxNB = t.notBefore, 1
	case 0:
		c.maxNB++
	}
	if t.sel != "" {
		sh.anySel = true
		c.sel++
	}
}

// low folds v into the minimum b, counting its tasks in c.
func low[T int | int64](b *T, c *int32, v T) {
	if v < *b {
		*b, *c = v, 1
	} else if v == *b {
		*c++
	}
}

// high folds v into the maximum b, counting its tasks in c.
func high[T int | int64](b *T, c *int32, v T) {
	if v > *b {
		*b, *c = v, 1
	} else if v == *b {
		*c++
	}
}

func lowVec(b *resource.Vector, c *[3]int32, v resource.Vector) {
	low(&b.GPUs, &c[0], v.GPUs)
	low(&b.MilliCPU, &c[1], v.MilliCPU)
	low(&b.MemMiB, &c[2], v.MemMiB)
}

func highVec(b *resource.Vector, c *[3]int32, v resource.Vector) {
	high(&b.GPUs, &c[0], v.GPUs)
	high(&b.MilliCPU, &c[1], v.MilliCPU)
	high(&b.MemMiB, &c[2], v.MemMiB)
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
// bounds are those of the pending tasks among the entries it read (never
// more entries than the list has), and no
// count is above the number of those tasks at its bound (a count above it
// would keep a loose bound).
func (tm *team) checkAgg(i int) error {
	a, q := &tm.aggs[i], tm.byType[i]
	if a.n > len(q) {
		return fmt.Errorf("the aggregate read %d entries of a list of %d (the list was cut without resetting it)", a.n, len(q))
	}
	if a.n < 0 || a.loose || a.folded == 0 {
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
