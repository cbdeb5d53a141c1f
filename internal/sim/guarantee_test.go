package sim

import (
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestGuaranteeMeterDefinition: a violation is a pending task that fits its
// team's unused quota while that quota is used by others; not a gang larger
// than the unused quota, nor a wait while others use only capacity no quota
// covers.
func TestGuaranteeMeterDefinition(t *testing.T) {
	g := newGuaranteeMeter()
	g.addCapacity("p5", 24)
	g.addQuota("p5", "a", 8)
	g.addQuota("p5", "b", 8) // 8 GPUs belong to no quota
	g.run("p5", "b", 16)     // 8 of its own and the 8 no quota covers
	g.pend("p5", "a", 8, 1)
	if v := g.violated(); v != 0 {
		t.Fatalf("b uses only unallocated capacity beyond its quota: violated %v, want 0", v)
	}
	g.run("p5", "b", 8) // now b holds 24: 8 of them are a's quota
	if v := g.violated(); v != 8 {
		t.Fatalf("a's 8-GPU task waits while b uses a's quota: violated %v, want 8", v)
	}
	g.run("p5", "a", 4) // a runs 4 (the cluster is over-full in this bookkeeping; the meter only counts)
	if v := g.violated(); v != 0 {
		t.Fatalf("a's 8-GPU task no longer fits a's 4 unused GPUs: violated %v, want 0", v)
	}
	g.pend("p5", "a", 2, 1)
	g.pend("p5", "a", 2, 1)
	g.pend("p5", "a", 2, 1)
	if v := g.violated(); v != 4 {
		t.Fatalf("three 2-GPU tasks fit a's 4 unused GPUs: violated %v, want 4 (capped at the room)", v)
	}
	g.pend("p5", "a", 2, -1)
	g.pend("p5", "a", 2, -1)
	g.pend("p5", "a", 2, -1)
	g.pend("p5", "a", 8, -1)
	if v := g.violated(); v != 0 {
		t.Fatalf("nothing pending: violated %v, want 0", v)
	}
}

// TestGuaranteeViolationInRun: team b borrows a's whole quota with a long
// task and a may not reclaim (reclaimWithinGroup Never); a's task that fits
// its quota waits 1000 s, so 8 GPUs × 1000 s are violated. A second task of
// a, larger than its quota, adds nothing.
func TestGuaranteeViolationInRun(t *testing.T) {
	c := tinyCluster(2, 1, 1)
	pct := 100
	c.Teams[1].BorrowLimitPercent = &pct
	c.Teams[0].ReclaimWithinGroup = model.ReclaimNever
	jobs := []Job{
		{SubmitS: 0, Name: "b1", Team: "b", InstanceType: "ml.p5.48xlarge", Nodes: 2, DurationS: 1100},
		{SubmitS: 100, Name: "a1", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 1, DurationS: 100},
		{SubmitS: 100, Name: "a2", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 2, DurationS: 100},
	}
	r, err := Run(jobs, Options{Cluster: c})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Fairness.GuaranteeViolationGPUSecs; got != 8*1000 {
		t.Fatalf("guarantee violation %v GPU·s, want 8000", got)
	}
	// The older measure counts a's whole demand up to its quota, the gang too.
	if got := r.Fairness.QuotaShortfallGPUSecs; got < 8*1000 {
		t.Fatalf("quota shortfall %v GPU·s, want at least 8000", got)
	}
}
