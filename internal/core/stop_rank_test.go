package core

import "testing"

// TestDifferentialCatchesBrokenStopRank injects a bug into the early stop
// under rank preemption (stoprank.go): the check takes the searches of tail
// tasks with own cheap lower-priority candidates as failing, though they may
// preempt. The differential test must see it.
func TestDifferentialCatchesBrokenStopRank(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "stoprank"); err != nil {
			t.Logf("caught at seed %d, as it must be: %v", seed, err)
			return
		}
	}
	t.Fatal("with an early stop that ignores own cheap victims, the differential test found no difference")
}

// TestDifferentialCatchesBrokenStopSkip injects a bug into the early stop's
// reading of the victim-search memo (stopskip.go): any entry of a team's
// mode counts as covering its tail, whatever the shape it failed for. The
// differential test must see it.
func TestDifferentialCatchesBrokenStopSkip(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "stopskip"); err != nil {
			t.Logf("caught at seed %d, as it must be: %v", seed, err)
			return
		}
	}
	t.Fatal("with an early stop that takes any memo entry as covering, the differential test found no difference")
}

// TestDifferentialCatchesBrokenStopTick injects a bug into the early stop
// under rank preemption (stoprank.go): a stop whose tail searches own cheap
// candidates no longer asks for the cost clock's next tick, as those tries
// would. The differential test must see it.
func TestDifferentialCatchesBrokenStopTick(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "stoptick"); err != nil {
			t.Logf("caught at seed %d, as it must be: %v", seed, err)
			return
		}
	}
	t.Fatal("with an early stop that leaves out its tail's tick, the differential test found no difference")
}
