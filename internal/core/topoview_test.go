package core

import (
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestTopologyFreeCountsSchedulableOnly: a domain's free GPUs are those new
// tasks can use, so a cordoned, drained or unhealthy node's idle GPUs are
// not in them (they were: a layer of cordoned nodes showed all its GPUs
// free); the machine's own line still shows its idle GPUs.
func TestTopologyFreeCountsSchedulableOnly(t *testing.T) {
	c := model.Cluster{
		Policy:     model.Policy{PriorityClasses: []model.PriorityClass{{Name: "training", Weight: 1}}},
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: "ml.p5.48xlarge", Count: 4, Topology: &model.Topology{NodesPerLayer3: 4, Layer3PerLayer2: 1, Layer2PerLayer1: 1}}},
	}
	s, err := New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(0, 0)
	nodes := s.Nodes()
	if err := s.Cordon(nodes[0].Spec.Name, true); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(nodes[1].Spec.Name, now); err != nil {
		t.Fatal(err)
	}
	if err := s.SetNodeHealth(nodes[2].Spec.Name, false, now); err != nil {
		t.Fatal(err)
	}
	v := s.TopologyView()
	for d := v.Roots[0]; d.Level != "node"; d = d.Children[0] {
		if d.Nodes != 4 || d.GPUs != 32 || d.FreeGPUs != 8 {
			t.Errorf("%s %s: %d nodes, %d GPUs, %d free; want 4, 32 and 8 (one schedulable node)", d.Level, d.Name, d.Nodes, d.GPUs, d.FreeGPUs)
		}
		if d.Children[0].Level == "node" {
			for _, m := range d.Children {
				if m.FreeGPUs != 8 {
					t.Errorf("machine %s shows %d free, want its 8 idle GPUs", m.Name, m.FreeGPUs)
				}
			}
		}
	}
	if txt := v.Text(200); !strings.Contains(txt, "32 GPUs      8 free") {
		t.Errorf("text tree:\n%s", txt)
	}
}
