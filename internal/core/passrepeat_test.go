package core

import "testing"

// TestDifferentialCatchesBrokenPass injects a bug into the repeat pass
// (passrepeat.go): it passes a task whose preemption searches the memo does
// not skip, so a search that would preempt is never made. The differential
// test must see it.
func TestDifferentialCatchesBrokenPass(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		if err := differentialRun(seed, 2000, "pass"); err != nil {
			t.Logf("caught, as it must be (seed %d): %v", seed, err)
			return
		}
	}
	t.Fatal("with every search taken as skipped by the memo, the differential test found no difference")
}
