package sim

import (
	"testing"
)

// TestGenerateNodesMix checks the whole-node mix: every job takes whole
// 8-GPU nodes, one to four of them, gangs carry topology, and the backlog
// is queued at time 0 before the arrivals.
func TestGenerateNodesMix(t *testing.T) {
	_, jobs := Generate(GenOptions{Seed: 2, Teams: 4, Jobs: 3000, GPUs: 1000, Load: 1.1, Backlog: 300, Mix: MixNodes})
	nodes := map[int]int{}
	topo := 0
	for i, j := range jobs {
		if j.GPUsPerNode != 8 || j.Nodes < 1 || j.Nodes > 4 || j.Nodes == 3 {
			t.Fatalf("job %s: %d nodes of %d GPUs, want 1, 2 or 4 whole nodes", j.Name, j.Nodes, j.GPUsPerNode)
		}
		nodes[j.Nodes]++
		if j.Topology != "" {
			topo++
			if j.Nodes == 1 {
				t.Fatalf("job %s: one node with topology %q", j.Name, j.Topology)
			}
		}
		if (i < 300) != (j.SubmitS == 0) {
			t.Fatalf("job %d (%s) submitted at %v; want the first 300 at 0 and no other", i, j.Name, j.SubmitS)
		}
	}
	// Half, a third and a sixth, within sampling noise (3,000 draws).
	for n, want := range map[int]float64{1: 0.5, 2: 1.0 / 3, 4: 1.0 / 6} {
		if got := float64(nodes[n]) / float64(len(jobs)); got < want-0.04 || got > want+0.04 {
			t.Errorf("%d-node jobs: %.3f of the trace, want about %.3f", n, got, want)
		}
	}
	if topo < len(jobs)/5 {
		t.Errorf("only %d jobs with topology", topo)
	}
	_, all := Generate(GenOptions{Seed: 2, Teams: 4, Jobs: 3000, GPUs: 1000, Load: 1.1})
	small := 0
	for _, j := range all {
		if j.GPUsPerNode < 8 {
			small++
		}
	}
	if small == 0 {
		t.Fatal("the default mix has no jobs of less than a node")
	}
}
