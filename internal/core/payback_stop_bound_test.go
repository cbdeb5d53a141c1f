package core

import (
	"fmt"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// The stop's rent bound (stopcheck.go) must read the rent an in-quota task
// decides with (rentByNextLook, the next tick), not the rent paid so far: a2
// pays by the next tick at 10m and preempts there in the full rescan.
func TestStopRentBoundReadsTheNextTick(t *testing.T) {
	gpus := func(n int64) *int64 { return &n }
	hundred := 100
	bound := int64(3600)
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: benchType, Count: 2}},
		Teams: []model.Team{
			{Name: "a", Lending: model.LendOnly, ReclaimWithinGroup: model.ReclaimAny, BorrowLimitPercent: &hundred,
				Quotas: []model.Quota{{InstanceType: benchType, GPUs: gpus(8)}}},
			{Name: "b", Lending: model.LendAndBorrow, ReclaimWithinGroup: model.ReclaimAny, BorrowLimitPercent: &hundred,
				Quotas: []model.Quota{{InstanceType: benchType, GPUs: gpus(8)}}},
		},
		Policy: model.Policy{StarvationBoundSeconds: &bound},
	}
	p := newDiffPair(t, c)
	task := func(name, tm string, g int64, submitted time.Time) model.TaskSpec {
		s := model.TaskSpec{Name: name, Team: tm, InstanceType: benchType, Nodes: 1, SubmitTime: submitted}
		s.PerNode.GPUs = g
		return s
	}
	t0 := epoch
	T := t0.Add(600 * time.Second)
	step := func(at time.Time, specs ...model.TaskSpec) {
		for _, spec := range specs {
			if err := p.both(func(s *Scheduler) error { return s.Submit(spec, at) }); err != nil {
				t.Fatal(err)
			}
		}
		if err := cycleBoth(p.inc, p.ref, at, fmt.Sprintf("cycle at %v", at.Sub(t0))); err != nil {
			t.Fatal(err)
		}
	}
	step(t0, task("b-own", "b", 8, time.Time{}))
	step(T.Add(-445*time.Second), task("b-bor", "b", 1, time.Time{}))
	step(T.Add(-5*time.Second), task("a2", "a", 8, t0.Add(2*time.Second)))
	step(T.Add(-2*time.Second), task("a1", "a", 8, t0.Add(1*time.Second)))
	step(T)
	for _, s := range []*Scheduler{p.inc, p.ref} {
		for _, w := range s.Waiting() {
			t.Logf("full=%v %s %s %+v", s.fullRescan, w.Task, w.Reason.Code, w.Reason)
		}
	}
}
