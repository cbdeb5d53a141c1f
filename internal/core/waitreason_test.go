package core

import (
	"fmt"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// waitingTasks submits n one-node tasks of team-000 to a 4-node cluster
// whose two teams have 2 nodes of quota each, and settles it: some run,
// the rest wait for the same reason.
func waitingTasks(t *testing.T, n int) *Scheduler {
	t.Helper()
	s, err := New(multiTypeCluster(4, 2, 1), 1)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < n; k++ {
		spec := model.TaskSpec{Name: fmt.Sprintf("t%02d", k), Team: "team-000", InstanceType: benchTypes[0],
			PerNode: model.Request{GPUs: 8}}
		if err := s.Submit(spec, epoch); err != nil {
			t.Fatal(err)
		}
	}
	settle(s, epoch)
	return s
}

// TestTasksRefusedAlikeShareOneRecord: tasks refused by the same quota
// answer point to one record, and each reads the reason it was given.
func TestTasksRefusedAlikeShareOneRecord(t *testing.T) {
	s := waitingTasks(t, 8)
	w := s.Waiting()
	if len(w) < 2 {
		t.Fatalf("%d tasks wait; the setup needs two refused alike", len(w))
	}
	first := s.tasks[w[0].Task]
	for _, x := range w {
		if x.Reason.Code == "" || x.Reason.Message() == "" {
			t.Fatalf("%s waits without a reason: %+v", x.Task, x.Reason)
		}
		if x.Reason != w[0].Reason {
			t.Fatalf("%s: %+v, %s: %+v; the setup refuses them alike", w[0].Task, w[0].Reason, x.Task, x.Reason)
		}
		if got := s.tasks[x.Task].wait; got != first.wait {
			t.Errorf("%s keeps its own record of the reason %s shares", x.Task, w[0].Task)
		}
		if info, _ := s.Task(x.Task); info.Wait != x.Reason {
			t.Errorf("%s: Task reads %+v, Waiting %+v", x.Task, info.Wait, x.Reason)
		}
	}
}

// TestFullReasonTableKeepsHeldReasons: emptying the intern table when it
// fills changes no reason a task holds, and a reason interned afresh is
// the same value.
func TestFullReasonTableKeepsHeldReasons(t *testing.T) {
	s := waitingTasks(t, 8)
	before := s.Waiting()
	for k := 0; k < 2*reasonTableMax+1; k++ {
		if r := s.record(model.WaitReason{Code: model.NoCapacity, Used: int64(k)}); r.Used != int64(k) {
			t.Fatalf("record %d reads %+v", k, *r)
		}
	}
	if len(s.reasons) > reasonTableMax {
		t.Fatalf("the table holds %d reasons, past its bound %d", len(s.reasons), reasonTableMax)
	}
	after := s.Waiting()
	for k := range before {
		if after[k] != before[k] {
			t.Fatalf("after the table was emptied: %+v, before: %+v", after[k], before[k])
		}
	}
	held := s.tasks[before[0].Task].wait
	if r := s.record(*held); *r != *held {
		t.Fatalf("interned afresh: %+v, held: %+v", *r, *held)
	}
}
