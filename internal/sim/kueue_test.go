package sim

import (
	"fmt"
	"sync"
	"testing"
)

// plainBaseline is the Kueue baseline's plain run (no breakdown, no
// preemption delay), made once for the tests that read it: the shape test
// and the breakdown's check that it only watches.
var plainBaseline = sync.OnceValues(func() (*Report, error) {
	c, jobs := KueueBaseline(false)
	return Run(jobs, Options{Cluster: c})
})

// TestKueueBaselineShape checks the workload and the bound against the
// figures Kueue publishes: 15,000 workloads, a 66.8 s bound per cohort (Kueue's arrivals start one interval in).
func TestKueueBaselineShape(t *testing.T) {
	c, jobs := KueueBaseline(false)
	if len(jobs) != 15000 || len(c.Teams) != 30 {
		t.Fatalf("%d workloads, %d queues", len(jobs), len(c.Teams))
	}
	if b := KueueCohortBound(); b != 66.8 {
		t.Fatalf("cohort bound %v s, want 66.8", b)
	}
	r, err := plainBaseline()
	if err != nil {
		t.Fatal(err)
	}
	f := KueueResult(r)
	if r.Tasks.Completed != 15000 || f.WallS < f.BoundS {
		t.Fatalf("completed %d, wall %v (bound %v)", r.Tasks.Completed, f.WallS, f.BoundS)
	}
	t.Logf("virtual time: wall %.1f s (bound %.0f), usage %.1f%%, admission small %.1f s, medium %.1f s, large %.1f s, %d evictions",
		f.WallS, f.BoundS, f.UsagePct, f.AdmitS["small"], f.AdmitS["medium"], f.AdmitS["large"], f.Evictions)
	c.Policy.PreemptionDelaySeconds = 1
	r2, _ := Run(jobs, Options{Cluster: c})
	f2 := KueueResult(r2)
	t.Logf("with a 1 s preemption delay: wall %.1f s, usage %.1f%%, admission small %.1f s, medium %.1f s, large %.1f s, %d evictions",
		f2.WallS, f2.UsagePct, f2.AdmitS["small"], f2.AdmitS["medium"], f2.AdmitS["large"], f2.Evictions)
}

// TestRunEndingAtAnArrivalEndsFirst: a small workload started at 2.2 s
// runs 0.2 s and ends when a large one arrives at 2.4 s. As floats, 2.2 +
// 0.2 is after 2.4; run ends are rounded to the microsecond, so it ends
// first and the large workload starts without evicting anyone (before, it
// evicted the 20 small workloads of its queue in their last instant).
func TestRunEndingAtAnArrivalEndsFirst(t *testing.T) {
	c, _ := KueueBaseline(false)
	var jobs []Job
	for q := 0; q < KueueQueuesByCohort; q++ { // cohort 0 full of small work
		for i := 0; i < 20; i++ {
			jobs = append(jobs, Job{SubmitS: 2.2, Name: fmt.Sprintf("cq-0-%d-small-%d", q, i), Team: fmt.Sprintf("cq-0-%d", q),
				Priority: "small", InstanceType: KueueType, Nodes: 1, VCPUPerNode: 1, DurationS: 0.2})
		}
	}
	jobs = append(jobs, Job{SubmitS: 2.4, Name: "cq-0-0-large-0", Team: "cq-0-0", Priority: "large", InstanceType: KueueType,
		Nodes: 1, VCPUPerNode: 20, DurationS: 1})
	if start, d := jobs[0].SubmitS, jobs[0].DurationS; start+d <= 2.4 {
		t.Fatal("the floats no longer show the case")
	}
	c.Policy.PreemptionDelaySeconds = 0
	r, err := Run(jobs, Options{Cluster: c})
	if err != nil {
		t.Fatal(err)
	}
	if r.Preemptions.Count != 0 || r.Tasks.Completed != len(jobs) || r.MakespanS != 3.4 {
		t.Fatalf("%d preemptions, %d of %d completed, makespan %v s; want none, all, 3.4 s", r.Preemptions.Count, r.Tasks.Completed, len(jobs), r.MakespanS)
	}
}
