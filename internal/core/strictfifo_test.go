package core

import "testing"

// TestDifferentialCatchesBrokenStrictStop injects a bug into the early
// stop's treatment of strict queues (strictfifo.go): the check passes a
// StrictFIFO team that still has a head in the walk, so its tail is
// deferred and rendered task by task, none of them blocked behind the
// head. The differential test, with a third of the teams strict, must see
// it.
func TestDifferentialCatchesBrokenStrictStop(t *testing.T) {
	catchStrictBug(t, "strictstop", "with an early stop that passes a strict team before its head is tried")
}

// TestDifferentialCatchesBrokenStrictSettle injects the bug into the bulk
// settle (settle.go): a spent type's strict team has every task tried, not
// only those up to the first that stays pending.
func TestDifferentialCatchesBrokenStrictSettle(t *testing.T) {
	catchStrictBug(t, "strictsettle", "with a bulk settle that tries a strict team's tasks behind its head")
}

// catchStrictBug requires the differential run with strict teams among
// the draws (queueKnobs) to find a difference with bug injected.
func catchStrictBug(t *testing.T, bug, what string) {
	queueKnobs = true
	defer func() { queueKnobs = false }()
	for seed := int64(3001); seed <= 3030; seed++ {
		if err := differentialRun(seed, 2000, bug); err != nil {
			t.Logf("caught, as it must be (seed %d): %v", seed, err)
			return
		}
	}
	t.Fatalf("%s, the differential test found no difference", what)
}
