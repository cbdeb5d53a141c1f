package core

import (
	"math/rand"
	"testing"
)

// agedInserts runs the one-input benchmark's aged shape (completions and
// preemptions) on a settled scheduler, with insertTail's injected bug set
// or not, and returns the scheduler and the tails it filed in place.
func agedInserts(t *testing.T, broken bool) (*Scheduler, uint64) {
	t.Helper()
	inc, _ := settledPair(t, multiTypeCluster(100, 4, 1))
	for _, tm := range inc.teams {
		// A full sort (as after a priority change) drops the running tasks'
		// entries: their preemptions queue them at the end.
		tm.unsort()
		sortQueue(tm)
		tm.breakInsert = broken
	}
	agedBench(inc, rand.New(rand.NewSource(3)))
	n := uint64(0)
	for _, tm := range inc.teams {
		n += tm.inserts
	}
	return inc, n
}

// TestQueueInsertKeepsOrder: victims whose entries a full sort had dropped
// come back in their places (queueinsert.go), and the queues pass
// checkQueues' comparison from scratch (order, per-type lists, liveFrom,
// bounds).
func TestQueueInsertKeepsOrder(t *testing.T) {
	inc, n := agedInserts(t, false)
	if n == 0 {
		t.Fatal("no tail was filed in place: the test does not exercise queueinsert.go")
	}
	if err := inc.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tails filed in place", n)
}

// TestQueueCheckCatchesBrokenInsert: with each returning task filed one
// entry past its place (breakInsert), the invariant check must see the
// queue out of order. Both cores share the queue code, so the differential
// test cannot.
func TestQueueCheckCatchesBrokenInsert(t *testing.T) {
	inc, _ := agedInserts(t, true)
	err := inc.CheckInvariants()
	if err == nil {
		t.Fatal("with returning tasks filed out of place, the invariant check found nothing")
	}
	t.Logf("caught, as it must be: %v", err)
}
