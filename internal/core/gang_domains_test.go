package core

import (
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestGangInterleavedAcrossDomains: a running gang whose pods lie in
// domains A, B, A (at a preemptor's required level) is one victim candidate
// of domain A, not two; listed twice, it was removed twice and the core
// panicked (index out of range in unassign).
func TestGangInterleavedAcrossDomains(t *testing.T) {
	qa, qb := int64(1), int64(3)
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: "ml.p5.48xlarge", Count: 4,
			Topology: &model.Topology{NodesPerLayer3: 2, Layer3PerLayer2: 2, Layer2PerLayer1: 1}}},
		Policy: model.Policy{Preemption: model.PreemptImmediate},
		Teams: []model.Team{
			{Name: "a", Group: "g", Lending: model.LendAndBorrow, BorrowLimitPercent: ip(500), Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: &qa}}},
			{Name: "b", Group: "g", Lending: model.LendAndBorrow, Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: &qb}}},
		},
	}
	s, err := New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	l := 2 // layer 3
	var d0, d1 []string
	for _, n := range s.nodes {
		switch n.dom[l] {
		case 0:
			d0 = append(d0, n.spec.Name)
		case 1:
			d1 = append(d1, n.spec.Name)
		}
	}
	now := time.Unix(100000, 0)
	gang := model.TaskSpec{Name: "g", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 3}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	pods := []model.PodPlacement{{Rank: 0, Node: d0[0], GPUs: all}, {Rank: 1, Node: d1[0], GPUs: all}, {Rank: 2, Node: d0[1], GPUs: all}}
	if err := s.Adopt(gang, 0, 0, time.Time{}, now.Add(-time.Hour), pods, now); err != nil {
		t.Fatal(err)
	}
	s.Schedule(now)
	now = now.Add(time.Minute)
	if err := s.Submit(model.TaskSpec{Name: "b1", Team: "b", InstanceType: "ml.p5.48xlarge", Nodes: 2,
		RequiredTopology: model.DefaultTopologyLevels[l]}, now); err != nil {
		t.Fatal(err)
	}
	d := s.Schedule(now)
	if len(d.Preemptions) != 1 || d.Preemptions[0].Task != "g" || len(d.Admissions) != 1 || d.Admissions[0].Task != "b1" {
		t.Errorf("b1 should reclaim the gang once and start: %+v %+v", d.Admissions, d.Preemptions)
	}
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
