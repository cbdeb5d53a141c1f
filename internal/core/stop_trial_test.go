package core

import "testing"

// TestDifferentialCatchesBrokenTrial injects a bug into the early stop's
// tries made ahead (stoptrial.go): a try that would admit, preempt, take a
// hold or mark the type unpaid counts as changing nothing, so the check
// passes a team whose tail may change something. The differential test
// must see it.
func TestDifferentialCatchesBrokenTrial(t *testing.T) {
	before := stats.trials
	if err := differentialRun(1, 2000, ""); err != nil {
		t.Fatal(err)
	}
	if made := stats.trials - before; made < 100 {
		t.Fatalf("the random run made %d tries ahead: too few to exercise them", made)
	} else {
		t.Logf("seed 1 without the bug: %d tries made ahead, the cores agree", made)
	}
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "trial"); err != nil {
			t.Logf("caught at seed %d, as it must be: %v", seed, err)
			return
		}
	}
	t.Fatal("with tries made ahead that never count a change, the differential test found no difference")
}
