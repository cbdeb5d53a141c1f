package sim

import (
	"reflect"
	"testing"
)

// TestCycleCauses: two whole-node jobs on one node, back to back. The cycles
// are j1's submission at 0 (admits), j2's at 10 (waits), j1's completion at
// 100 (admits j2) and j2's at 150; no wake-ups. Every cycle is counted once
// and the tries add up to the core's count.
func TestCycleCauses(t *testing.T) {
	jobs := []Job{
		{SubmitS: 0, Name: "j1", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 1, DurationS: 100},
		{SubmitS: 10, Name: "j2", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 1, DurationS: 50},
	}
	r, err := Run(jobs, Options{Cluster: tinyCluster(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Scheduler.Causes
	tried := uint64(0)
	for k := range got {
		tried += got[k].TasksTried
		got[k].TasksTried = 0
	}
	want := []CycleCause{{Cause: CauseRelease, Cycles: 2, Changed: 1}, {Cause: CauseSubmit, Cycles: 2, Changed: 1}, {Cause: CauseWake}}
	if !reflect.DeepEqual(got, want) || r.Scheduler.Decisions != 4 || tried != r.Scheduler.TasksTried {
		t.Fatalf("causes %+v (tried %d of %d, %d cycles); want %+v", got, tried, r.Scheduler.TasksTried, r.Scheduler.Decisions, want)
	}
}
