package core

import (
	"math/rand"
	"testing"
	"time"
)

// TestDifferentialCatchesBrokenTakerAlone injects a bug into the lone
// taker's deferred tries (holdtaker.go: breakTakerAlone makes the scan
// miss the taker, whose try, which takes the hold, is then deferred too)
// and requires the comparison with the full rescan to see it: the random
// differential runs first, then the aged shape's completions.
func TestDifferentialCatchesBrokenTakerAlone(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "takeralone"); err != nil {
			t.Logf("caught by the random runs, as it must be (seed %d): %v", seed, err)
			return
		}
	}
	for seed := int64(2); seed <= 9; seed++ {
		if err := takerAloneRun(t, true, seed); err != nil {
			t.Logf("caught by the aged shape, as it must be (draw %d): %v", seed, err)
			return
		}
	}
	t.Fatal("with a lone taker's own try deferred, the cores still agree")
}

// TestTakerAloneAgedShape: the aged shape's completions decide as the full
// rescan does, and some walks defer a lone taker's tries before it.
func TestTakerAloneAgedShape(t *testing.T) {
	if err := takerAloneRun(t, false, 2); err != nil {
		t.Fatal(err)
	}
}

func takerAloneRun(t *testing.T, bug bool, seed int64) error {
	inc, ref, now := agedPair(t)
	inc.breakTakerAlone = bug
	r := rand.New(rand.NewSource(seed))
	now = now.Add(time.Second)
	alone := inc.jump.alone
	for k := 0; k < 12; k++ {
		if _, err := agedCompletion(t, inc, ref, r, now, k); err != nil {
			return err
		}
	}
	if !bug && inc.jump.alone == alone {
		t.Fatal("no walk deferred a lone taker's tries: the test does not exercise holdtaker.go")
	}
	t.Logf("draw %d: %d walks deferred a lone taker's tries", seed, inc.jump.alone-alone)
	return nil
}
