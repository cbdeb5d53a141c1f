package core

import (
	"fmt"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestQueueEntriesStayUnique: a task leaves and re-enters its team's queue
// between sorts (suspended and resumed while pending; admitted, then
// preempted back by a node failure, while its admission's stale entry is
// still in the list): it is listed once, at its place, and Pending counts it
// once.
func TestQueueEntriesStayUnique(t *testing.T) {
	one := int64(1)
	c := model.Cluster{NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: benchType, Count: 2}},
		Teams: []model.Team{{Name: "a", Quotas: []model.Quota{{InstanceType: benchType, Count: &one}}}}}
	s, err := New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.SetLazyWaiting(true)
	for k := 0; k < 4; k++ {
		spec := model.TaskSpec{Name: fmt.Sprintf("t%d", k), Team: "a", InstanceType: benchType, PerNode: model.Request{GPUs: 8}}
		if err := s.Submit(spec, epoch.Add(time.Duration(k)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string, want ...string) {
		t.Helper()
		var got []string
		for k, w := range s.Waiting() {
			if w.Position != k+1 {
				t.Fatalf("%s: %s at position %d, want %d", when, w.Task, w.Position, k+1)
			}
			got = append(got, w.Task)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || s.Pending() != len(want) {
			t.Fatalf("%s: waiting %v (Pending %d), want %v", when, got, s.Pending(), want)
		}
	}
	now := epoch.Add(time.Minute)
	if d := s.Schedule(now); len(d.Admissions) != 1 || d.Admissions[0].Task != "t0" {
		t.Fatalf("admitted %v, want t0", d.Admissions)
	}
	check("after the admission", "t1", "t2", "t3")
	// Suspended and resumed with no cycle (no sort) in between.
	if err := s.Suspend("t2", now); err != nil {
		t.Fatal(err)
	}
	if err := s.Resume("t2", now); err != nil {
		t.Fatal(err)
	}
	if s.Pending() != 3 {
		t.Fatalf("after suspend and resume: Pending %d, want 3", s.Pending())
	}
	now = now.Add(time.Second)
	s.Schedule(now)
	check("after suspend, resume and a cycle", "t1", "t2", "t3")
	// The admitted task comes back (its node fails) while its stale entry
	// may still be in the list.
	node := s.nodes[s.tasks["t0"].pods[0].node].spec.Name
	if err := s.SetNodeHealth(node, false, now); err != nil {
		t.Fatal(err)
	}
	if s.Pending() != 4 {
		t.Fatalf("after the node failure: Pending %d, want 4", s.Pending())
	}
	s.Schedule(now.Add(time.Second)) // t0 starts again on the other node
	check("after the node failure and a cycle", "t1", "t2", "t3")
}
