package sim

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestKueueBreakdownAddsUp checks that the breakdown accounts for every
// eviction and workload of the matched setting (preemption at once), and
// that its figures are the run's.
func TestKueueBreakdownAddsUp(t *testing.T) {
	c, jobs := KueueBaseline(false)
	c.Policy.PreemptionDelaySeconds = 0
	b, err := RunKueueBreakdown(c, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if b.Evictions != b.Report.Preemptions.Count || b.Evictions == 0 {
		t.Fatalf("breakdown counts %d evictions, the report %d", b.Evictions, b.Report.Preemptions.Count)
	}
	sum := func(m map[string]int) (n int) {
		for _, c := range m {
			n += c
		}
		return n
	}
	for name, m := range map[string]map[string]int{"kind": b.ByKind, "ran": b.Ran, "started": b.StartedBeforeArrival, "queue": b.VictimQueue,
		"preemptor": b.Preemptor, "readmitted": b.Readmitted} {
		if sum(m) != b.Evictions {
			t.Errorf("by %s: %d evictions, want %d", name, sum(m), b.Evictions)
		}
	}
	if sum(b.TimesEvicted) != len(jobs) || sum(b.FirstAdmitted) != len(jobs) {
		t.Errorf("%d workloads by times evicted, %d by first admission, want %d", sum(b.TimesEvicted), sum(b.FirstAdmitted), len(jobs))
	}
	victims, preemptions := 0, 0
	for n, c := range b.VictimsPerPreemptor {
		victims += n * c
		preemptions += c
	}
	if sum(b.SparedWait) != preemptions {
		t.Errorf("%d preemptions by their victims' remaining run, want %d", sum(b.SparedWait), preemptions)
	}
	reclaimOrPriority := 0
	for k, c := range b.ByKind {
		if !strings.Contains(k, "QuotaReduced") && !strings.Contains(k, "NodeLost") {
			reclaimOrPriority += c
		}
	}
	if victims != reclaimOrPriority {
		t.Errorf("preemptors took %d victims, %d evictions were for a workload", victims, reclaimOrPriority)
	}
	// The room large work left is used by medium and small runs or idle,
	// never over-used.
	used := b.Room.IdleVCPUS
	for _, v := range b.Room.VCPUS {
		used += v
	}
	if b.Room.IdleVCPUS < -1e-6 || math.Abs(used-b.Room.RoomVCPUS) > 1e-6 || b.Room.VCPUS["medium evicted"] == 0 {
		t.Errorf("room %v vCPU·s, idle %v, used by kind %v", b.Room.RoomVCPUS, b.Room.IdleVCPUS, b.Room.VCPUS)
	}
	var out bytes.Buffer
	b.Print(&out)
	if !strings.Contains(out.String(), "medium <- large WithinTeamPriority (same queue)") ||
		!strings.Contains(out.String(), "victim admitted again 1.0 s later") {
		t.Errorf("printed breakdown lacks the main kind:\n%s", out.String())
	}
	// Identical to the plain run (shared with TestKueueBaselineShape): the
	// breakdown only watches.
	r, err := plainBaseline()
	if err != nil {
		t.Fatal(err)
	}
	if r.Preemptions.Count != b.Evictions || r.MakespanS != b.Report.MakespanS {
		t.Errorf("plain run: %d evictions, wall %v; with the breakdown %d, %v", r.Preemptions.Count, r.MakespanS, b.Evictions, b.Report.MakespanS)
	}
}

// TestKueueStrictPriorityFluid pins the fluid figure the docs quote: one
// queue, large and medium work before small, smalls first come first
// served.
func TestKueueStrictPriorityFluid(t *testing.T) {
	if f := KueueStrictPriorityFluid(); f != 45.6 {
		t.Fatalf("fluid small admission %v s, want 45.6", f)
	}
}
