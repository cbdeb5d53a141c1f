package core

import "testing"

// TestDifferentialCatchesBrokenStopFair injects a bug into the early stop's
// fair-share wake-ups (stopfair.go): a stop whose tail reaches a borrowing
// search no longer asks for the minimum runtime's end that search asks for.
// The differential test must see it.
func TestDifferentialCatchesBrokenStopFair(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "stopfair"); err != nil {
			t.Logf("caught at seed %d, as it must be: %v", seed, err)
			return
		}
	}
	t.Fatal("with an early stop that leaves out its tail's fair-share wake-up, the differential test found no difference")
}

// TestDifferentialCatchesBrokenStopDear injects a bug into the early stop's
// fair-share bound (stopfair.go): other teams' cheap candidates are taken
// as dear, so a tail whose borrowing search may preempt them does not block
// the stop. The random run reaches it with gangs of partial nodes among the
// draws (TestIncrementalMatchesFullRescanMixedShapes's seeds).
func TestDifferentialCatchesBrokenStopDear(t *testing.T) {
	mixedShapes = true
	defer func() { mixedShapes = false }()
	for seed := int64(1001); seed <= 1010; seed++ {
		if err := differentialRun(seed, 2000, "stopdear"); err != nil {
			t.Logf("caught at seed %d, as it must be: %v", seed, err)
			return
		}
	}
	t.Fatal("with an early stop that takes cheap fair-share candidates as dear, the differential test found no difference")
}
