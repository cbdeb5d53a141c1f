package core

import (
	"fmt"
	"math/rand"
	"testing"
	"time"
)

// TestDifferentialCatchesBrokenStopHold injects a bug into the early stop
// with a hold in place (stophold.go): the check passes while the holder has
// not been tried yet, so its try (which may start it or drop its hold) is
// deferred. The differential test must see it.
func TestDifferentialCatchesBrokenStopHold(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "stophold"); err != nil {
			t.Logf("caught, as it must be: %v", err)
			return
		}
	}
	t.Fatal("with an early stop that defers an untried holder, the differential test found no difference")
}

// TestStopWithAHoldInPlace: the one-input benchmark's aged shape, small (1,000
// tasks on 100 nodes, four teams, aged four hours: agedBench), so the queue
// is past its starvation bound. After each completion the team left below
// its quota takes a hold, and the walk stops once its holder was tried
// (stophold.go): a fraction of the queue is tried, and the decision, the
// waiting list and the next wake-up equal the full rescan's. With the
// check passing before the holder is tried (breakStopHold), they do not,
// for one of a few draws of the completions (which draws show it depends
// on where the walks stop, which the stop's other rules move).
func TestStopWithAHoldInPlace(t *testing.T) {
	if err := stopHoldRun(t, false, 2); err != nil {
		t.Fatal(err)
	}
	for seed := int64(2); seed <= 9; seed++ {
		if err := stopHoldRun(t, true, seed); err != nil {
			t.Logf("with the bug injected, as it must (draw %d): %v", seed, err)
			return
		}
	}
	t.Fatal("with a stop that defers an untried holder, the cores still agree")
}

func stopHoldRun(t *testing.T, bug bool, seed int64) error {
	inc, ref, now := agedPair(t)
	inc.breakStopHold = bug
	r := rand.New(rand.NewSource(seed))
	now = now.Add(time.Second)
	held, tried, pending := inc.stops.held, uint64(0), 0
	for k := 0; k < 12; k++ {
		pending += inc.Pending()
		n, err := agedCompletion(t, inc, ref, r, now, k)
		if err != nil {
			return err
		}
		tried += n
	}
	t.Logf("tried %d of %d pending over 12 completions; %d walks stopped with a hold in place", tried, pending, inc.stops.held-held)
	if !bug && (inc.stops.held == held || tried > uint64(pending/2)) {
		t.Fatalf("tried %d of %d pending, %d stops with a hold in place: the test does not exercise stophold.go", tried, pending, inc.stops.held-held)
	}
	return nil
}

// TestDifferentialCatchesBrokenSettleFit injects a bug into bulk settling's
// per-team test (settle.go: spent): a team whose queue has no room passes as
// inert past its starvation due even when its smallest request fits its
// quota (its try would take a hold). The differential test must see it.
func TestDifferentialCatchesBrokenSettleFit(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		if err := differentialRun(seed, 2000, "settlefit"); err != nil {
			t.Logf("caught, as it must be: %v", err)
			return
		}
	}
	t.Fatal("with bulk settling that ignores a due hold, the differential test found no difference")
}

// agedPair is an incremental core and a full-rescan reference, each aged
// as the one-input benchmark's aged shape (small), in timed mode.
func agedPair(t *testing.T) (inc, ref *Scheduler, now time.Time) {
	inc, ref = settledPair(t, multiTypeCluster(100, 4, 1))
	for _, s := range []*Scheduler{inc, ref} {
		full := s.fullRescan
		now = agedBench(s, rand.New(rand.NewSource(3)))
		timedMode(s, full)
	}
	return inc, ref, now
}

// agedCompletion completes a running task drawn from r in both cores,
// compares their next cycle (completion k), and settles both. It returns
// the tasks that cycle tried in the incremental core.
func agedCompletion(t *testing.T, inc, ref *Scheduler, r *rand.Rand, now time.Time, k int) (uint64, error) {
	run := runningTasks(inc)
	name := run[r.Intn(len(run))]
	for _, s := range []*Scheduler{inc, ref} {
		if err := s.Complete(name); err != nil {
			t.Fatal(err)
		}
	}
	before := inc.tried
	if err := cycleBoth(inc, ref, now, fmt.Sprintf("completion %d", k)); err != nil {
		return 0, err
	}
	tried := inc.tried - before
	for _, s := range []*Scheduler{inc, ref} {
		settle(s, now)
	}
	return tried, nil
}

// TestDifferentialCatchesBrokenHeldCount injects a bug into the
// no-admission bound with a hold in place (stopheld.go): the holder's own
// nodes are left out for the holder too, so a holder that may start on
// the nodes it held no longer holds the stop back. The differential test
// must see it.
func TestDifferentialCatchesBrokenHeldCount(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "heldown"); err != nil {
			t.Logf("caught at seed %d, as it must be: %v", seed, err)
			return
		}
	}
	t.Fatal("with the holder's own nodes left out of its count, the differential test found no difference")
}
