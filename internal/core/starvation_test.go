package core

import (
	"fmt"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// starvationRun drives a 16-node cluster where team "small" keeps a deep
// backlog of 1-node tasks that each run 10 minutes, and team "big" submits an
// 8-node gang within its quota at minute 30, when the cluster is full. It returns when the gang started
// (or false if it never did within the horizon).
func starvationRun(t *testing.T, boundSeconds int64, horizon time.Duration) (time.Duration, bool) {
	t.Helper()
	big, small := int64(8), int64(16)
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: benchType, Count: 16}},
		Policy:     model.Policy{StarvationBoundSeconds: &boundSeconds},
		Teams: []model.Team{
			{Name: "big", Quotas: []model.Quota{{InstanceType: benchType, Count: &big}}},
			{Name: "small", Lending: model.DontLend, Quotas: []model.Quota{{InstanceType: benchType, Count: &small}}},
		},
	}
	s, err := New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	const run = 10 * time.Minute
	started := map[string]time.Time{}
	next := 0
	for now := epoch; now.Sub(epoch) <= horizon; now = now.Add(time.Minute) {
		for name, at := range started {
			if now.Sub(at) >= run {
				if err := s.Complete(name); err != nil {
					t.Fatal(err)
				}
				delete(started, name)
			}
		}
		for k := 0; k < 4; k++ { // a steady stream keeps the small queue full
			next++
			_ = s.Submit(model.TaskSpec{Name: fmt.Sprintf("s%d", next), Team: "small", InstanceType: benchType}, now)
		}
		if now.Sub(epoch) == 30*time.Minute {
			_ = s.Submit(model.TaskSpec{Name: "gang", Team: "big", InstanceType: benchType, Nodes: 8}, now)
		}
		d := s.Schedule(now)
		for _, a := range d.Admissions {
			if a.Task == "gang" {
				return now.Sub(epoch.Add(30 * time.Minute)), true
			}
			started[a.Task] = now
		}
		if err := s.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	}
	return 0, false
}

// TestStarvationBound: a large gang behind an endless stream of small tasks
// starts within the starvation bound plus the longest small-task run.
// Without the guard (a bound longer than the horizon) it starves, which
// shows the guard, not luck, bounds the wait.
func TestStarvationBound(t *testing.T) {
	const bound = 15 * time.Minute
	waited, ok := starvationRun(t, int64(bound/time.Second), 6*time.Hour)
	if !ok {
		t.Fatal("the gang never started")
	}
	if limit := bound + 10*time.Minute; waited > limit {
		t.Fatalf("the gang waited %v, above the bound %v", waited, limit)
	}
	t.Logf("gang waited %v (bound %v + 10m run)", waited, bound)
	if _, ok := starvationRun(t, int64((24 * time.Hour).Seconds()), 6*time.Hour); ok {
		t.Fatal("without the guard the gang still started: the test does not exercise starvation")
	}
}

// TestOneHoldAtATime: two teams' 8-node gangs starve behind an endless stream
// of a third team's 1-node tasks on 16 nodes. The first in cycle order holds
// 8 nodes and starts when they drain; only then does the second hold and
// drain 8. Every task runs 10 minutes. Both start within the bound plus two runs,
// and CheckInvariants (one holder per type) holds after every cycle.
func TestOneHoldAtATime(t *testing.T) {
	bound := int64(15 * 60)
	eight, sixteen := int64(8), int64(16)
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: benchType, Count: 16}},
		Policy:     model.Policy{StarvationBoundSeconds: &bound},
		Teams: []model.Team{
			{Name: "a", Quotas: []model.Quota{{InstanceType: benchType, Count: &eight}}},
			{Name: "b", Quotas: []model.Quota{{InstanceType: benchType, Count: &eight}}},
			{Name: "small", Lending: model.DontLend, Quotas: []model.Quota{{InstanceType: benchType, Count: &sixteen}}},
		},
	}
	s, err := New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	const run = 10 * time.Minute
	started := map[string]time.Time{}
	gangStart := map[string]time.Duration{}
	next := 0
	submitAt := epoch.Add(30 * time.Minute)
	for now := epoch; now.Sub(epoch) <= 3*time.Hour && len(gangStart) < 2; now = now.Add(time.Minute) {
		for name, at := range started {
			if now.Sub(at) >= run {
				if err := s.Complete(name); err != nil {
					t.Fatal(err)
				}
				delete(started, name)
			}
		}
		for k := 0; k < 4; k++ {
			next++
			_ = s.Submit(model.TaskSpec{Name: fmt.Sprintf("s%d", next), Team: "small", InstanceType: benchType}, now)
		}
		if now.Equal(submitAt) {
			for _, tm := range []string{"a", "b"} {
				if err := s.Submit(model.TaskSpec{Name: "gang-" + tm, Team: tm, InstanceType: benchType, Nodes: 8}, now); err != nil {
					t.Fatal(err)
				}
			}
		}
		d := s.Schedule(now)
		for _, a := range d.Admissions {
			started[a.Task] = now
			if a.Team != "small" {
				gangStart[a.Task] = now.Sub(submitAt)
			}
		}
		if err := s.CheckInvariants(); err != nil {
			t.Fatalf("at %v: %v", now.Sub(epoch), err)
		}
	}
	if len(gangStart) != 2 {
		t.Fatalf("gangs started: %v; want both", gangStart)
	}
	first, second := gangStart["gang-a"], gangStart["gang-b"]
	if first > second {
		first, second = second, first
	}
	limit := time.Duration(bound)*time.Second + 2*run
	if second > limit || second <= first {
		t.Fatalf("gangs started %v and %v after submission; want one after the other, both within %v", first, second, limit)
	}
	t.Logf("gangs started %v and %v after submission", first, second)
}
