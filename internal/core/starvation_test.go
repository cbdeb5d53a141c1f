package core

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// starvationRun drives a 16-node cluster where team "small" (16-node quota,
// DontLend) keeps a deep backlog of 1-node tasks, and each of gangTeams
// (8-node quota each) submits an 8-node gang within its quota at minute 30,
// when the cluster is full. Every task runs 10 minutes. It checks the
// invariants after every cycle and returns how long after submission each
// gang started (a gang missing from the map never did within the horizon),
// and the wait codes each gang was given.
func starvationRun(t *testing.T, boundSeconds int64, horizon time.Duration, gangTeams ...string) (map[string]time.Duration, map[string]map[model.WaitCode]bool) {
	t.Helper()
	eight, sixteen := int64(8), int64(16)
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: benchType, Count: 16}},
		Policy:     model.Policy{StarvationBoundSeconds: &boundSeconds},
		Teams:      []model.Team{{Name: "small", Lending: model.DontLend, Quotas: []model.Quota{{InstanceType: benchType, Count: &sixteen}}}},
	}
	for _, tm := range gangTeams {
		c.Teams = append(c.Teams, model.Team{Name: tm, Quotas: []model.Quota{{InstanceType: benchType, Count: &eight}}})
	}
	s, err := New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	const run = 10 * time.Minute
	submitAt := epoch.Add(30 * time.Minute)
	started := map[string]time.Time{}
	gangStart := map[string]time.Duration{}
	reasons := map[string]map[model.WaitCode]bool{}
	next := 0
	for now := epoch; now.Sub(epoch) <= horizon && len(gangStart) < len(gangTeams); now = now.Add(time.Minute) {
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
		if now.Equal(submitAt) {
			for _, tm := range gangTeams {
				if err := s.Submit(model.TaskSpec{Name: tm, Team: tm, InstanceType: benchType, Nodes: 8}, now); err != nil {
					t.Fatal(err)
				}
			}
		}
		d := s.Schedule(now)
		for _, w := range d.Waiting {
			if w.Team != "small" {
				if reasons[w.Task] == nil {
					reasons[w.Task] = map[model.WaitCode]bool{}
				}
				reasons[w.Task][w.Reason.Code] = true
				if w.Reason.Code == model.Draining && !strings.Contains(s.TopologyView().Text(200), "held for "+w.Task) {
					t.Fatalf("%s drains, but the topology view marks no node held for it:\n%s", w.Task, s.TopologyView().Text(200))
				}
			}
		}
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
	return gangStart, reasons
}

// TestStarvationBound: a large gang behind an endless stream of small tasks
// starts within the starvation bound plus the longest small-task run.
// Without the guard (a bound longer than the horizon) it starves, which
// shows the guard, not luck, bounds the wait.
func TestStarvationBound(t *testing.T) {
	const bound = 15 * time.Minute
	starts, _ := starvationRun(t, int64(bound/time.Second), 6*time.Hour, "big")
	waited, ok := starts["big"]
	if !ok {
		t.Fatal("the gang never started")
	}
	if limit := bound + 10*time.Minute; waited > limit {
		t.Fatalf("the gang waited %v, above the bound %v", waited, limit)
	}
	t.Logf("gang waited %v (bound %v + 10m run)", waited, bound)
	if starts, _ := starvationRun(t, int64((24 * time.Hour).Seconds()), 6*time.Hour, "big"); len(starts) > 0 {
		t.Fatal("without the guard the gang still started: the test does not exercise starvation")
	}
}

// TestOneHoldAtATime: two teams' gangs starve behind the stream. The first in
// cycle order holds 8 nodes and starts when they drain; only then does the
// second hold and drain 8, and until then it is told QueuedForHold. Both
// start within the bound plus two runs, and CheckInvariants (one holder per
// type) holds after every cycle.
func TestOneHoldAtATime(t *testing.T) {
	const bound = 15 * time.Minute
	starts, reasons := starvationRun(t, int64(bound/time.Second), 3*time.Hour, "a", "b")
	if len(starts) != 2 {
		t.Fatalf("gangs started: %v; want both", starts)
	}
	first, second := min(starts["a"], starts["b"]), max(starts["a"], starts["b"])
	if limit := bound + 2*10*time.Minute; second > limit || second <= first {
		t.Fatalf("gangs started %v and %v after submission; want one after the other, both within %v", first, second, limit)
	}
	later := "b"
	if starts["a"] > starts["b"] {
		later = "a"
	}
	if r := reasons[later]; !r[model.QueuedForHold] || !r[model.Draining] {
		t.Fatalf("the later gang was told %v; want QueuedForHold while the other drained, then Draining", r)
	}
	t.Logf("gangs started %v and %v after submission", first, second)
}
