package sim

import (
	"fmt"
	"math"
	"testing"
)

// TestArrivalNoiseDoesNotPrecedeARunEnd: as TestRunEndingAtAnArrivalEndsFirst,
// but the large workload's arrival is the float just below 2.4, as a trace
// written by another program may carry it ("2.3999999999999995"). Arrivals
// are rounded to the microsecond like run ends, so the small workloads
// still end first and no one is evicted.
func TestArrivalNoiseDoesNotPrecedeARunEnd(t *testing.T) {
	c, _ := KueueBaseline(false)
	var jobs []Job
	for q := 0; q < KueueQueuesByCohort; q++ {
		for i := 0; i < 20; i++ {
			jobs = append(jobs, Job{SubmitS: 2.2, Name: fmt.Sprintf("cq-0-%d-small-%d", q, i), Team: fmt.Sprintf("cq-0-%d", q),
				Priority: "small", InstanceType: KueueType, Nodes: 1, VCPUPerNode: 1, DurationS: 0.2})
		}
	}
	at := math.Nextafter(2.4, 0)
	jobs = append(jobs, Job{SubmitS: at, Name: "cq-0-0-large-0", Team: "cq-0-0", Priority: "large", InstanceType: KueueType,
		Nodes: 1, VCPUPerNode: 20, DurationS: 1})
	c.Policy.PreemptionDelaySeconds = 0
	r, err := Run(jobs, Options{Cluster: c})
	if err != nil {
		t.Fatal(err)
	}
	if r.Preemptions.Count != 0 || r.Tasks.Completed != len(jobs) {
		t.Fatalf("arrival %v: %d preemptions, %d of %d completed; want none, all", at, r.Preemptions.Count, r.Tasks.Completed, len(jobs))
	}
}
