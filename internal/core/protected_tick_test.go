package core

import (
	"reflect"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestProtectedReasonFollowsCostClock: a VictimProtected reason names the
// victims its search chooses by lost work at the cost clock, so a tick of
// that clock alone may change it, and the incremental core must look again
// then (protected.go). Two protected victims of different priority, each
// alone in a layer-3 domain, start again 30 s apart within one tick: at
// that tick both lose the same work, and the tie names the lower-priority
// one (low); a tick later mid, started later, loses less and is named. The
// incremental core kept low (the differential gate's KueueKnobs seed 2001).
func TestProtectedReasonFollowsCostClock(t *testing.T) {
	quota := int64(2)
	var nodes []model.Node
	for _, h := range []string{"x", "y"} {
		nodes = append(nodes, model.Node{Name: h + "-0", InstanceType: benchType, Labels: map[string]string{
			model.LabelLayer1: "b", model.LabelLayer2: "b-r", model.LabelLayer3: h}})
	}
	c := model.Cluster{Nodes: nodes,
		Policy: model.Policy{Preemption: model.PreemptImmediate, TaskPrioritization: model.TaskRanking,
			PriorityClasses: []model.PriorityClass{{Name: "high", Weight: 90}, {Name: "mid", Weight: 50}, {Name: "low", Weight: 10}}},
		Teams: []model.Team{{Name: "a", PreemptTeamTasks: model.PreemptLowerPriority,
			Quotas: []model.Quota{{InstanceType: benchType, Count: &quota}}}},
	}
	p := newDiffPair(t, c)
	task := func(name, prio string, req string) model.TaskSpec {
		return model.TaskSpec{Name: name, Team: "a", Priority: prio, InstanceType: benchType, RequiredTopology: req}
	}
	type step struct {
		at       time.Duration
		input    func(s *Scheduler) error
		reasonOf string // the task whose wait reason the step checks, with
		names    string // the protected victim it must name
	}
	steps := []step{
		{0, func(s *Scheduler) error {
			if err := s.Submit(task("mid", "mid", ""), epoch); err != nil {
				return err
			}
			return s.Submit(task("low", "low", ""), epoch)
		}, "", ""},
		{10 * time.Minute, func(s *Scheduler) error { return s.Submit(task("h1", "high", ""), epoch.Add(10*time.Minute)) }, "", ""},
		{20 * time.Minute, func(s *Scheduler) error { return s.Complete("h1") }, "", ""}, // low starts again
		{20*time.Minute + 10*time.Second, func(s *Scheduler) error {
			return s.Submit(task("h2", "high", ""), epoch.Add(20*time.Minute+10*time.Second)) // takes mid: low is protected
		}, "", ""},
		{20*time.Minute + 30*time.Second, func(s *Scheduler) error { return s.Complete("h2") }, "", ""}, // mid starts again
		{20*time.Minute + 40*time.Second, func(s *Scheduler) error {
			return s.Submit(task("h", "high", model.LabelLayer3), epoch.Add(20*time.Minute+40*time.Second))
		}, "h", "low"},
		{21*time.Minute + 30*time.Second, nil, "h", "mid"},
	}
	for _, st := range steps {
		now := epoch.Add(st.at)
		if st.input != nil {
			if err := p.both(st.input); err != nil {
				t.Fatalf("at %v: %v", st.at, err)
			}
		}
		a, b := p.inc.Schedule(now), p.ref.Schedule(now)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("at %v: incremental and full-rescan cycles differ:\n%s", st.at, firstDiff(a, b))
		}
		if st.reasonOf == "" {
			continue
		}
		var got *model.WaitReason
		for _, w := range b.Waiting {
			if w.Task == st.reasonOf {
				got = &w.Reason
			}
		}
		if got == nil || got.Code != model.VictimProtected || got.Detail != st.names {
			t.Fatalf("at %v: %s waits with %+v, want VictimProtected naming %s", st.at, st.reasonOf, got, st.names)
		}
	}
}
