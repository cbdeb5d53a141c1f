package core

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestStopLeavesCheapReclaimToTheWalk: a within-quota task whose cheap
// victims are another team's borrowed tasks reclaims them at once (rule 10),
// so the walk may not stop before it. Team a borrows three of b's nodes; two
// of its tasks have just checkpointed; b submits two tasks: the full rescan
// reclaims a victim for each in the same cycle, and so must the incremental
// one. With the stop made to ignore such searches (breakStopSearch), the
// two differ: the proof that this test sees the bug.
func TestStopLeavesCheapReclaimToTheWalk(t *testing.T) {
	if err := stopCheapReclaimRun(t, false); err != nil {
		t.Fatal(err)
	}
	if err := stopCheapReclaimRun(t, true); err == nil {
		t.Fatal("with a stop that ignores within-quota searches, the cores still agree")
	} else {
		t.Logf("with the bug injected, as it must: %v", err)
	}
}

func stopCheapReclaimRun(t *testing.T, bug bool) error {
	qa, qb := int64(1), int64(3)
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: randTypes[0], Count: 4}},
		Policy: model.Policy{TaskPrioritization: model.FirstComeFirstServe, IdleComputeAllocation: model.IdleFirstComeFirstServe,
			StarvationBoundSeconds: i64(3600), Preemption: model.PreemptPayback},
		Teams: []model.Team{
			{Name: "a", Group: "g", Lending: model.LendAndBorrow, BorrowLimitPercent: ip(500), Quotas: []model.Quota{{InstanceType: randTypes[0], Count: &qa}}},
			{Name: "b", Group: "g", Lending: model.LendAndBorrow, PreemptTeamTasks: model.PreemptNever, Quotas: []model.Quota{{InstanceType: randTypes[0], Count: &qb}}},
		},
	}
	inc, err := New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := New(c, 1)
	ref.SetFullRescan(true)
	inc.SetLazyWaiting(true)
	inc.breakStopSearch = bug
	both := func(f func(s *Scheduler) error) {
		if a, b := f(inc), f(ref); fmt.Sprint(a) != fmt.Sprint(b) || a != nil {
			t.Fatalf("input: %v / %v", a, b)
		}
	}
	now := epoch
	step := func() error {
		a, b := inc.Schedule(now), ref.Schedule(now)
		a.Waiting = inc.Waiting()
		if !reflect.DeepEqual(a, b) {
			return fmt.Errorf("differ at %v:\n%s", now.Sub(epoch), firstDiff(a, b))
		}
		if inc.stops.renderHits > 0 {
			return fmt.Errorf("%d deferred tries changed state when rendered", inc.stops.renderHits)
		}
		return nil
	}
	for _, n := range []string{"a1", "a2", "a3", "a4"} {
		spec := model.TaskSpec{Name: n, Team: "a", InstanceType: randTypes[0], Nodes: 1}
		both(func(s *Scheduler) error { return s.Submit(spec, now) })
	}
	if err := step(); err != nil {
		return err
	}
	now = now.Add(1000 * time.Second)
	both(func(s *Scheduler) error { return s.Checkpoint("a2", now) })
	both(func(s *Scheduler) error { return s.Checkpoint("a3", now) })
	if err := step(); err != nil {
		return err
	}
	now = now.Add(15 * time.Second) // 5 s before a cost-clock tick: b's tasks pay no restart by it (the stop's rent bound)
	for _, n := range []string{"b0", "b1"} {
		spec := model.TaskSpec{Name: n, Team: "b", InstanceType: randTypes[0], Nodes: 1}
		both(func(s *Scheduler) error { return s.Submit(spec, now) })
	}
	if err := step(); err != nil {
		return err
	}
	now = now.Add(30 * time.Second)
	return step()
}
