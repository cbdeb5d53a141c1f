package core

import (
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// A node that offers less than its type (Kubernetes allocatable, less what
// DaemonSets request) takes only what it has: a whole-node task skips it and
// a task that fits its remainder lands there.
func TestAllocatableCapsANode(t *testing.T) {
	c := model.Cluster{Policy: model.Policy{PriorityClasses: []model.PriorityClass{{Name: "training", Weight: 1}}}}
	s, err := New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	seven := resource.New(7, 180, 1900)
	if err := s.AddNode(model.Node{Name: "short", InstanceType: "ml.p5.48xlarge", Allocatable: &seven}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddNode(model.Node{Name: "full", InstanceType: "ml.p5.48xlarge"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTeam(model.Team{Name: "a", Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: new(int64(2))}}}); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(0, 0)
	whole := model.TaskSpec{Name: "whole", Team: "a", InstanceType: "ml.p5.48xlarge", Priority: "training"}
	part := model.TaskSpec{Name: "seven", Team: "a", InstanceType: "ml.p5.48xlarge", Priority: "training", PerNode: model.Request{GPUs: 7}}
	for _, sp := range []model.TaskSpec{whole, part} {
		if err := s.Submit(sp, now); err != nil {
			t.Fatal(err)
		}
	}
	d := s.Schedule(now)
	where := map[string]string{}
	for _, a := range d.Admissions {
		where[a.Task] = a.Pods[0].Node
	}
	if where["whole"] != "full" || where["seven"] != "short" {
		t.Fatalf("placed %v, want whole on full and seven on short", where)
	}
	for _, n := range s.Nodes() {
		if n.Spec.Name == "short" && (n.GPUs != 7 || n.FreeGPUs != 0) {
			t.Fatalf("short node shows %d GPUs, %d free; want 7 and 0", n.GPUs, n.FreeGPUs)
		}
	}
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	bad := resource.New(-1, 0, 0)
	if err := s.AddNode(model.Node{Name: "bad", InstanceType: "ml.p5.48xlarge", Allocatable: &bad}); err == nil {
		t.Fatal("a negative allocatable was accepted")
	}

	// A whole-node task takes a node whose allocatable is below the type's
	// (vCPU and memory here, as Kubernetes reserves some).
	k, _ := New(c, 1)
	almost := resource.New(8, 191, 2000)
	_ = k.AddNode(model.Node{Name: "k8s", InstanceType: "ml.p5.48xlarge", Allocatable: &almost})
	_ = k.SetTeam(model.Team{Name: "a", Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: new(int64(1))}}})
	_ = k.Submit(whole, now)
	if d := k.Schedule(now); len(d.Admissions) != 1 {
		t.Fatalf("a whole-node task did not take the only node: %+v", d)
	}
	if err := k.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}

// A node whose allocatable changes after it joined (a DaemonSet pod lands
// on it) offers the new amount once it is idle; while it runs a pod it
// keeps what it had, so running pods keep exactly what they were given.
func TestAllocatableChangesWhenIdle(t *testing.T) {
	c := model.Cluster{Policy: model.Policy{PriorityClasses: []model.PriorityClass{{Name: "training", Weight: 1}}}}
	s, _ := New(c, 1)
	_ = s.AddNode(model.Node{Name: "n", InstanceType: "ml.p5.48xlarge"})
	_ = s.SetTeam(model.Team{Name: "a", Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: new(int64(1))}}})
	now := time.Unix(0, 0)
	six := resource.New(6, 180, 1900)
	if ok, err := s.SetNodeAllocatable("n", &six); !ok || err != nil {
		t.Fatalf("idle node: applied %v, err %v", ok, err)
	}
	if n := s.Nodes()[0]; n.GPUs != 6 || n.FreeGPUs != 6 {
		t.Fatalf("after the change: %d GPUs, %d free; want 6 and 6", n.GPUs, n.FreeGPUs)
	}
	_ = s.Submit(model.TaskSpec{Name: "whole", Team: "a", InstanceType: "ml.p5.48xlarge", Priority: "training", PerNode: model.Request{GPUs: 6}}, now)
	_ = s.Submit(model.TaskSpec{Name: "more", Team: "a", InstanceType: "ml.p5.48xlarge", Priority: "training", PerNode: model.Request{GPUs: 1}}, now)
	if d := s.Schedule(now); len(d.Admissions) != 1 || d.Admissions[0].Task != "whole" {
		t.Fatalf("on the 6-GPU node: %+v; want the 6-GPU task alone", d.Admissions)
	}
	if ok, err := s.SetNodeAllocatable("n", nil); ok || err != nil {
		t.Fatalf("busy node: applied %v, err %v; want deferred", ok, err)
	}
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	_ = s.Complete("whole")
	_ = s.Cancel("more")
	if ok, _ := s.SetNodeAllocatable("n", nil); !ok || s.Nodes()[0].GPUs != 8 {
		t.Fatalf("idle again: applied %v, %d GPUs; want the type's 8", ok, s.Nodes()[0].GPUs)
	}
	bad := resource.New(-1, 0, 0)
	if _, err := s.SetNodeAllocatable("n", &bad); err == nil {
		t.Fatal("a negative allocatable was accepted")
	}
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
