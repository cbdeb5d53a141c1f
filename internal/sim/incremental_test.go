package sim

import (
	"encoding/json"
	"testing"
)

// TestReplayIncrementalMatchesFull replays a deep-backlog trace twice, with
// the core's incremental cycles and with its full-rescan reference, and
// requires the same report (the scheduler's own counters aside): the
// differential test of the core (core.TestIncrementalMatchesFullRescan)
// seen from the simulator, on a workload with gangs, topology and a
// backlog that grows.
func TestReplayIncrementalMatchesFull(t *testing.T) {
	jobs := 1200
	if testing.Short() {
		jobs = 400
	}
	cluster, trace := Generate(GenOptions{Seed: 3, Teams: 4, Jobs: jobs, GPUs: 256, Load: 1.15})
	report := func(full bool) (string, uint64) {
		r, err := Run(trace, Options{Cluster: cluster, Seed: 3, FullRescan: full})
		if err != nil {
			t.Fatal(err)
		}
		tried := r.Scheduler.TasksTried
		r.Scheduler.TasksTried, r.Scheduler.WallS = 0, 0
		for k := range r.Scheduler.Causes {
			r.Scheduler.Causes[k].TasksTried = 0 // the count differs by mode; the cycles do not
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), tried
	}
	inc, incTried := report(false)
	ref, refTried := report(true)
	if inc != ref {
		t.Fatalf("incremental and full-rescan replays differ:\n%.2000s\nvs\n%.2000s", inc, ref)
	}
	t.Logf("tasks tried: incremental %d, full rescan %d", incTried, refTried)
	if incTried >= refTried {
		t.Fatalf("incremental cycles tried %d tasks, no fewer than the full rescan's %d", incTried, refTried)
	}
}
