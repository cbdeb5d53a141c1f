package sim

import "testing"

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
	r, err := Run(jobs, Options{Cluster: c})
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
