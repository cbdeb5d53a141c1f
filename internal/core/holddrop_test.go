package core

import (
	"math/rand"
	"testing"
	"time"
)

// TestDifferentialCatchesBrokenDropJump injects a bug into the drop jump
// (holddrop.go: breakDropJump leaves the holder's team out of the takers, so
// its tail, when hold-blind, is deferred with the holder's try that drops
// the hold) and requires the comparison with the full rescan to see it: the
// random differential runs first, then the aged shape's completions.
func TestDifferentialCatchesBrokenDropJump(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "dropjump"); err != nil {
			t.Logf("caught by the random runs, as it must be (seed %d): %v", seed, err)
			return
		}
	}
	for seed := int64(2); seed <= 9; seed++ {
		if err := dropJumpRun(t, true, seed); err != nil {
			t.Logf("caught by the aged shape, as it must be (draw %d): %v", seed, err)
			return
		}
	}
	t.Fatal("with a drop jump that defers the holder's try, the cores still agree")
}

func dropJumpRun(t *testing.T, bug bool, seed int64) error {
	inc, ref, now := agedPair(t)
	inc.breakDropJump = bug
	r := rand.New(rand.NewSource(seed))
	now = now.Add(time.Second)
	for k := 0; k < 12; k++ {
		if _, err := agedCompletion(t, inc, ref, r, now, k); err != nil {
			return err
		}
	}
	return nil
}
