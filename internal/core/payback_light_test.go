package core

import (
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestLightTaskPaybackHasNoTime: a task of tiny weight (one milli-vCPU, no
// GPU) facing a dear borrowed victim would take centuries to pay; its
// reason gives no time rather than one that overflowed into the past.
func TestLightTaskPaybackHasNoTime(t *testing.T) {
	c := ownerAndBorrower()
	s, err := New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1767225600, 0)
	for _, n := range []string{"v1", "v2"} {
		if err := s.Submit(model.TaskSpec{Name: n, Team: "v", InstanceType: "ml.p5.48xlarge"}, now); err != nil {
			t.Fatal(err)
		}
	}
	s.Schedule(now)
	now = now.Add(14 * time.Hour)
	if err := s.Submit(model.TaskSpec{Name: "o1", Team: "o", InstanceType: "ml.p5.48xlarge", PerNode: model.Request{VCPU: 0.001}}, now); err != nil {
		t.Fatal(err)
	}
	d := s.Schedule(now)
	found := false
	for _, w := range d.Waiting {
		if w.Task != "o1" {
			continue
		}
		found = true
		if w.Reason.Code != model.WaitingForPayback || w.Reason.At != 0 {
			t.Errorf("o1: %+v (at %v)", w.Reason, time.Unix(w.Reason.At, 0).UTC())
		}
	}
	if !found {
		t.Fatal("o1 is not in the waiting list")
	}
}

// ownerAndBorrower is two one-node teams on two p5 nodes under Payback
// (restart 600 s): o, and v, which may borrow 100% (o's idle node).
func ownerAndBorrower() model.Cluster {
	qo, qv := int64(1), int64(1)
	return model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: "ml.p5.48xlarge", Count: 2}},
		Policy:     model.Policy{Preemption: model.PreemptPayback, RestartCostSeconds: i64(600)},
		Teams: []model.Team{
			{Name: "o", Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: &qo}}},
			{Name: "v", BorrowLimitPercent: ip(100), Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: &qv}}},
		},
	}
}
