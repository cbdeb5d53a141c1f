package sim

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestKueueRoomKinds checks the room accounting on runs made by hand: a
// run ended by an eviction, the same workload's rerun, a run that never
// saw an eviction and is cut at the window's end, a run before the window,
// and a large run, which uses room rather than filling it.
func TestKueueRoomKinds(t *testing.T) {
	m0, m1, s0, l0 := "cq-0-0-medium-0", "cq-0-0-medium-1", "cq-0-0-small-0", "cq-0-0-large-0"
	dur := map[string]float64{m0: 0.5, m1: 0.5, s0: 0.2, l0: 1}
	cpu := map[string]float64{m0: 5, m1: 5, s0: 1, l0: 20}
	admitted := map[string][]float64{m0: {2.2, 3.4}, m1: {59.8}, s0: {0.5}, l0: {1.2}}
	evs := []kueueEviction{{at: 2.4, victim: m0, forTask: "cq-0-0-large-1"}}
	r := kueueRoom(evs, admitted, dur, cpu)
	if r.FromS != 1.2 || r.ToS != 60 {
		t.Fatalf("window %v-%v s, want the first and last large arrivals, 1.2-60 s", r.FromS, r.ToS)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	if want := 600*58.8 - 20; !near(r.RoomVCPUS, want) {
		t.Errorf("room %v vCPU·s, want %v (capacity less the large run)", r.RoomVCPUS, want)
	}
	for key, want := range map[string]float64{"medium evicted": 1, "medium rerun": 2.5, "medium fresh": 1} {
		if !near(r.VCPUS[key], want) || r.Runs[key] != 1 {
			t.Errorf("%s: %v vCPU·s in %d runs, want %v in 1", key, r.VCPUS[key], r.Runs[key], want)
		}
	}
	if len(r.VCPUS) != 3 {
		t.Errorf("kinds %v, want only the three medium runs (the small one ran before the window)", r.VCPUS)
	}
	if !near(r.IdleVCPUS, r.RoomVCPUS-4.5) {
		t.Errorf("idle %v, want the room less 4.5 vCPU·s", r.IdleVCPUS)
	}
	if v, n := r.Kind("rerun"); !near(v, 2.5) || n != 1 {
		t.Errorf("all reruns: %v vCPU·s in %d runs, want 2.5 in 1", v, n)
	}
	var out bytes.Buffer
	r.Print(&out)
	if !strings.Contains(out.String(), "vCPU·s: medium rerun runs (1)") || !strings.Contains(out.String(), "vCPU·s: idle") {
		t.Errorf("printed room lacks the rerun:\n%s", out.String())
	}
}
