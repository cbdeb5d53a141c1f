package core

import "testing"

// TestDifferentialCatchesDueAcrossRewrite injects a bug in tailDue's memo
// kept across cycles (stopwake.go): it is kept across a rewrite of its
// list (team.lists), so positions it read hold other tasks. The
// differential test must see it.
func TestDifferentialCatchesDueAcrossRewrite(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		if err := differentialRun(seed, 2000, "duelists"); err != nil {
			t.Logf("caught, as it must be (seed %d): %v", seed, err)
			return
		}
	}
	t.Fatal("with tailDue's memo kept across its list's rewrites, the differential test found no difference")
}

// TestDifferentialCatchesDueAfterUsageFell injects another: the memo is
// kept when its team's usage fell (a completion), so tasks that fit only
// now are not read.
func TestDifferentialCatchesDueAfterUsageFell(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		if err := differentialRun(seed, 2000, "duefall"); err != nil {
			t.Logf("caught, as it must be (seed %d): %v", seed, err)
			return
		}
	}
	t.Fatal("with tailDue's memo kept after its team's usage fell, the differential test found no difference")
}

// TestDifferentialCatchesDueRevivedUnread injects another: an entry pending
// again in its place (repend) is not read into the memo that covers it.
func TestDifferentialCatchesDueRevivedUnread(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		if err := differentialRun(seed, 2000, "duerevived"); err != nil {
			t.Logf("caught, as it must be (seed %d): %v", seed, err)
			return
		}
	}
	t.Fatal("with an entry pending again left out of tailDue's memo, the differential test found no difference")
}

// TestDifferentialCatchesDueFromOldStart injects the other bug: a memo kept
// from an earlier cycle answers for the tail from where that cycle's scan
// began, without reading the entries from the new tail's start to there.
// The clean run must keep some answers across cycles, and the differential
// test must see the bug.
func TestDifferentialCatchesDueFromOldStart(t *testing.T) {
	before := stats.dueKept
	if err := differentialRun(1, 2000, ""); err != nil {
		t.Fatal(err)
	}
	if kept := stats.dueKept - before; kept == 0 {
		t.Fatal("the random run kept no tailDue answer across cycles: it does not exercise the memo")
	} else {
		t.Logf("seed 1 without the bug: %d answers kept across cycles, the cores agree", kept)
	}
	for seed := int64(1); seed <= 30; seed++ {
		if err := differentialRun(seed, 2000, "duefrom"); err != nil {
			t.Logf("caught, as it must be (seed %d): %v", seed, err)
			return
		}
	}
	t.Fatal("with a kept memo not read from the tail's new start, the differential test found no difference")
}
