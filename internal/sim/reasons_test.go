package sim

import (
	"encoding/json"
	"math"
	"testing"
)

// TestWaitReasonsAddUp: reading the reasons changes no decision (only the
// count of tasks tried), and a job
// never preempted spent its whole wait pending, so its reasons add up to its
// wait; each class's reasons add up to its mean time pending.
func TestWaitReasonsAddUp(t *testing.T) {
	cluster, jobs := Generate(GenOptions{Seed: 5, Teams: 4, Jobs: 600, GPUs: 64, Load: 0.9})
	plain, err := Run(jobs, Options{Cluster: cluster, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(jobs, Options{Cluster: cluster, Seed: 5, WaitReasons: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.WaitReasons == nil || plain.WaitReasons != nil {
		t.Fatal("wait_reasons_by_priority only and always with WaitReasons")
	}
	perClass := r.WaitReasons
	// Listing the queue renders the tries the early stop deferred (they
	// decide nothing), so only the count of tries may differ.
	for _, x := range []*Report{plain, r} {
		x.Scheduler.WallS, x.Scheduler.TasksTried = 0, 0
		for k := range x.Scheduler.Causes {
			x.Scheduler.Causes[k].TasksTried = 0
		}
	}
	r.WaitReasons = nil
	ja, _ := json.Marshal(plain)
	jb, _ := json.Marshal(r)
	if string(ja) != string(jb) {
		t.Fatal("reading the wait reasons changed the run")
	}
	waited, n := 0, map[string]int{}
	pending := map[string]float64{}
	for _, o := range r.Jobs {
		n[o.Priority]++
		sum := 0.0
		for _, v := range o.WaitByReason {
			sum += v
		}
		pending[o.Priority] += sum
		if o.Preemptions > 0 {
			continue
		}
		if w := o.FirstAdmitS - o.SubmitS; math.Abs(sum-w) > 1e-6*(1+w) {
			t.Fatalf("%s waited %v s, its reasons add up to %v: %v", o.Name, w, sum, o.WaitByReason)
		}
		if sum > 0 {
			waited++
		}
	}
	if waited < 50 {
		t.Fatalf("only %d jobs waited: the trace does not test the reasons", waited)
	}
	for c, m := range perClass {
		sum := 0.0
		for _, v := range m {
			sum += v
		}
		if want := pending[c] / float64(n[c]); math.Abs(sum-want) > 1e-6*(1+want) {
			t.Fatalf("class %s: reasons add up to %v per job, jobs pending %v", c, sum, want)
		}
	}
}
