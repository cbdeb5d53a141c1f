package sim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestWaitReasonsAddUp: reading the reasons changes no decision (only the
// count of tasks tried); each job's reasons add up to its time queued
// (wait_queued_total's clock), which lies between its first wait and its
// wait to the last admission; and a job
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
	perClass, why := r.WaitReasons, r.Fairness.GuaranteeWhy
	if why == nil || plain.Fairness.GuaranteeWhy != nil {
		t.Fatal("guarantee_violation_by only and always with WaitReasons")
	}
	// Listing the queue renders the tries the early stop deferred (they
	// decide nothing), so only the count of tries may differ.
	for _, x := range []*Report{plain, r} {
		x.Scheduler.WallS, x.Scheduler.TasksTried = 0, 0
		for k := range x.Scheduler.Causes {
			x.Scheduler.Causes[k].TasksTried = 0
		}
	}
	r.WaitReasons, r.Fairness.GuaranteeWhy = nil, nil
	episodes, byOrder, room := r.PaybackEpisodes, r.WaitByQuotaOrder, r.RoomWhileWaiting
	if episodes == nil || byOrder == nil || room == nil || plain.PaybackEpisodes != nil || plain.WaitByQuotaOrder != nil || plain.RoomWhileWaiting != nil {
		t.Fatal("payback_episodes, wait_by_quota_order and room_while_waiting only and always with WaitReasons")
	}
	r.PaybackEpisodes, r.WaitByQuotaOrder, r.RoomWhileWaiting = nil, nil, nil
	ja, _ := json.Marshal(plain)
	jb, _ := json.Marshal(r)
	if string(ja) != string(jb) {
		t.Fatal("reading the wait reasons changed the run")
	}
	waited, preempted, n := 0, 0, map[string]int{}
	pending := map[string]float64{}
	for _, o := range r.Jobs {
		n[o.Priority]++
		sum := 0.0
		for _, v := range o.WaitByReason {
			sum += v
		}
		pending[o.Priority] += sum
		// Two instruments: the reasons' time and the queue's own clock.
		if math.Abs(sum-o.QueuedS) > 1e-6*(1+sum) {
			t.Fatalf("%s: reasons add up to %v, queued %v", o.Name, sum, o.QueuedS)
		}
		if o.Preemptions > 0 {
			if o.QueuedS < o.FirstAdmitS-o.SubmitS || o.QueuedS > o.LastAdmitS-o.SubmitS+1e-9 {
				t.Fatalf("%s: queued %v, first wait %v, to last admission %v", o.Name, o.QueuedS, o.FirstAdmitS-o.SubmitS, o.LastAdmitS-o.SubmitS)
			}
			preempted++
			continue
		}
		if w := o.FirstAdmitS - o.SubmitS; math.Abs(sum-w) > 1e-6*(1+w) {
			t.Fatalf("%s waited %v s, its reasons add up to %v: %v", o.Name, w, sum, o.WaitByReason)
		}
		if sum > 0 {
			waited++
		}
	}
	if waited < 50 || preempted < 5 {
		t.Fatalf("only %d jobs waited, %d were preempted: the trace does not test the reasons", waited, preempted)
	}
	// The guarantee's violation, split by the tasks that make it, adds up
	// to the whole in each split.
	viol := r.Fairness.GuaranteeViolationGPUSecs
	if viol <= 0 {
		t.Fatal("no guarantee violation: the trace does not test its split")
	}
	for name, split := range map[string]map[string]map[string]float64{"reason": why.ByReason, "queued": why.ByQueued} {
		sum := why.Unlisted
		for _, m := range split {
			for _, v := range m {
				sum += v
			}
		}
		if math.Abs(sum-viol) > 1e-6*(1+viol) {
			t.Fatalf("violation by %s adds up to %v, not %v", name, sum, viol)
		}
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
	// Two instruments again: the payback waits, episode by episode, and
	// the jobs' time in each payback reason, at their GPUs.
	gpuTime := map[string]float64{}
	for _, o := range r.Jobs {
		for k, v := range o.WaitByReason {
			gpuTime[k] += v * float64(o.GPUs)
		}
	}
	kinds := 0
	for k, outs := range episodes {
		sum := 0.0
		for o, st := range outs {
			sum += st.WaitedGPUSecs
			// Victims exactly where work was lost; fresh ones among them.
			if st.FreshVictimGPUs < 0 || st.FreshVictimGPUs > st.VictimGPUs || (st.VictimGPUs > 0) != (st.LostGPUSecs > 0) {
				t.Fatalf("%s, %s: victims %v GPUs, fresh %v, lost %v GPU·s", k, o, st.VictimGPUs, st.FreshVictimGPUs, st.LostGPUSecs)
			}
		}
		if want := gpuTime[k]; math.Abs(sum-want) > 1e-6*(1+want) {
			t.Fatalf("%s: episodes waited %v GPU·s, jobs %v", k, sum, want)
		}
		kinds++
	}
	for k, v := range gpuTime {
		if strings.HasPrefix(k, "WaitingForPayback") && v > 0 && episodes[k] == nil {
			t.Fatalf("%s: jobs waited %v GPU·s, no episode", k, v)
		}
	}
	if kinds == 0 {
		t.Fatal("no payback wait: the trace does not test the episodes")
	}
	// The standings against the quota add up to each class's mean wait.
	for c, m := range byOrder {
		sum := 0.0
		for _, st := range m {
			sum += st.PerJobOfClassS
		}
		if want := r.Wait.ByPriority[c].MeanS; math.Abs(sum-want) > 1e-6*(1+want) {
			t.Fatalf("class %s: standings add up to %v, mean wait %v", c, sum, want)
		}
	}
}
