package core

import (
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// A gang whose nodeSelector too few nodes match waits with NoMatchingNodes;
// once a node gains the label (SetNodeLabels) it starts, on matching nodes
// only. The node keeps its topology labels whatever the new set says.
func TestNodeSelectorFollowsLabels(t *testing.T) {
	s, err := New(model.Cluster{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	dhc := map[string]string{"sagemaker.amazonaws.com/deep-health-check-status": "Passed"}
	for i, name := range []string{"n0", "n1", "n2"} {
		labels := map[string]string{model.LabelLayer3: "d0"}
		if i == 2 {
			labels["sagemaker.amazonaws.com/deep-health-check-status"] = "Passed"
		}
		if err := s.AddNode(model.Node{Name: name, InstanceType: "ml.p5.48xlarge", Labels: labels}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetTeam(model.Team{Name: "a", Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: new(int64(3))}}}); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	if err := s.Submit(model.TaskSpec{Name: "gang", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 2, NodeSelector: dhc}, now); err != nil {
		t.Fatal(err)
	}
	d := s.Schedule(now)
	if len(d.Admissions) != 0 || len(d.Waiting) != 1 || d.Waiting[0].Reason.Code != model.NoMatchingNodes || d.Waiting[0].Reason.Used != 1 {
		t.Fatalf("with one matching node: %+v", d)
	}
	changed, err := s.SetNodeLabels("n0", map[string]string{"sagemaker.amazonaws.com/deep-health-check-status": "Passed", model.LabelLayer3: "moved"})
	if err != nil || !changed {
		t.Fatalf("SetNodeLabels: %v %v", changed, err)
	}
	if again, _ := s.SetNodeLabels("n0", map[string]string{"sagemaker.amazonaws.com/deep-health-check-status": "Passed"}); again {
		t.Error("the same labels again reported a change")
	}
	d = s.Schedule(now.Add(time.Second))
	if len(d.Admissions) != 1 {
		t.Fatalf("after labelling n0: %+v", d)
	}
	for _, p := range d.Admissions[0].Pods {
		if p.Node == "n1" {
			t.Errorf("the gang was placed on n1, which lacks the label: %+v", d.Admissions[0].Pods)
		}
	}
	for _, n := range s.Nodes() {
		if n.Spec.Name == "n0" && n.Spec.Labels[model.LabelLayer3] != "d0" {
			t.Errorf("n0's topology label changed: %v", n.Spec.Labels)
		}
	}
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
