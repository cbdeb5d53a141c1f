package core

import (
	"math/rand"
	"testing"
)

// TestQueueKeptThroughCompletionsAndRequeues: the one-input benchmark's
// aged shape (completions, and preemptions whose victims take their old
// entries again), with no full sort after either (queuekeep.go); the kept
// queues pass checkQueues' comparison from scratch, and the run decides
// what it decided with a full sort after each (the tries, pending counts
// and decisions of TestStopWithAHoldInPlace's draws are unchanged).
func TestQueueKeptThroughCompletionsAndRequeues(t *testing.T) {
	inc, _ := settledPair(t, multiTypeCluster(100, 4, 1))
	agedBench(inc, rand.New(rand.NewSource(3)))
	if err := inc.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, tm := range inc.teams {
		if tm.stale > 0 {
			kept++
		}
	}
	if kept == 0 {
		t.Fatal("no team's queue kept a stale entry: the test does not exercise queuekeep.go")
	}
}

// TestQueueCheckCatchesBrokenRepend: with a requeued entry's place left out
// of liveFrom (breakRepend), the walk would start past a pending task; the
// invariant check must see it. Both cores share the queue code, so the
// differential test cannot.
func TestQueueCheckCatchesBrokenRepend(t *testing.T) {
	inc, _ := settledPair(t, multiTypeCluster(100, 4, 1))
	inc.breakRepend = true
	agedBench(inc, rand.New(rand.NewSource(3)))
	err := inc.CheckInvariants()
	if err == nil {
		t.Fatal("with requeued entries left out of liveFrom, the invariant check found nothing")
	}
	t.Logf("caught, as it must be: %v", err)
}

// TestQueueCheckCatchesBrokenCount: with departures left off the counts of
// the tasks at each bound (breakCount), a list's bounds stay those of tasks
// that left; the invariant check's fold from scratch must see it. The
// differential test cannot (a loose bound is still a bound): only the
// stop's tries would grow.
func TestQueueCheckCatchesBrokenCount(t *testing.T) {
	inc, _ := settledPair(t, multiTypeCluster(100, 4, 1))
	for _, tm := range inc.teams {
		tm.breakCount = true
	}
	agedBench(inc, rand.New(rand.NewSource(3)))
	err := inc.CheckInvariants()
	if err == nil {
		t.Fatal("with departures left off the bounds' counts, the invariant check found nothing")
	}
	t.Logf("caught, as it must be: %v", err)
}
