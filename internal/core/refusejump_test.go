package core

import "testing"

// TestDifferentialCatchesBrokenRefuse injects a bug into the refusal jump
// (refusejump.go): after a preemption every deferred team stays deferred,
// although the preemption may have let its quota in (its tries then admit,
// search or record another reason in the full walk). The differential test
// must see it.
func TestDifferentialCatchesBrokenRefuse(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		if err := differentialRun(seed, 2000, "refuse"); err != nil {
			t.Logf("caught, as it must be (seed %d): %v", seed, err)
			return
		}
	}
	t.Fatal("with deferred teams kept deferred after a preemption, the differential test found no difference")
}

// TestDifferentialCatchesBrokenRefuseLog injects the other bug: a team put
// back after a preemption takes as tried before it only its tasks whose key
// comes before the preemptor's, not those before any head popped since its
// deferral (the heap's order is not monotone). The differential test must
// see it.
func TestDifferentialCatchesBrokenRefuseLog(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		if err := differentialRun(seed, 2000, "refuselog"); err != nil {
			t.Logf("caught, as it must be (seed %d): %v", seed, err)
			return
		}
	}
	t.Fatal("with a team put back by the preemptor's key alone, the differential test found no difference")
}
