package core

import (
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestShareMovedMarksOtherTypes: a weighted share spans instance types, so a
// completion on one type can let a team preempt by fair share on another,
// which no input touched; only shareMoved (dirty.go) marks it. Team x
// borrows on A and has a task waiting on B, where y borrows: x's share
// (its borrowing on A) is above y's, so it waits. When x's borrowed task on
// A completes, x's share falls below y's and its task on B preempts y's
// borrowed one, in the full rescan and in the incremental core. With
// shareMoved's pass skipped whatever moved (breakShareEpoch, sharemoved.go)
// B is not evaluated again and the cores differ: the proof that the test
// sees the bug. So do they with the pass leaving out the teams whose
// borrowing was written since the last one (breakShareList: x is one).
// The random differential run does not reach this case.
func TestShareMovedMarksOtherTypes(t *testing.T) {
	if err := shareMovedRun(t, nil); err != nil {
		t.Fatal(err)
	}
	bugs := map[string]func(s *Scheduler){
		"the pass skipped":          func(s *Scheduler) { s.breakShareEpoch = true },
		"the listed teams left out": func(s *Scheduler) { s.breakShareList = true },
	}
	for _, name := range []string{"the pass skipped", "the listed teams left out"} {
		if err := shareMovedRun(t, bugs[name]); err == nil {
			t.Fatalf("with %s, the cores still agree", name)
		} else {
			t.Logf("with %s, as it must: %v", name, err)
		}
	}
}

func shareMovedRun(t *testing.T, bug func(s *Scheduler)) error {
	const a, b = "ml.p5.48xlarge", "ml.g5.48xlarge"
	var c model.Cluster
	c.NodeGroups = []model.NodeGroup{{Name: "a", InstanceType: a, Count: 9}, {Name: "b", InstanceType: b, Count: 6}}
	one, two, four, six, all := int64(1), int64(2), int64(4), int64(6), 500
	c.Teams = []model.Team{
		{Name: "lender", Lending: model.LendOnly, Quotas: []model.Quota{{InstanceType: a, Count: &six}, {InstanceType: b, Count: &four}}},
		{Name: "x", BorrowLimitPercent: &all, Quotas: []model.Quota{{InstanceType: a, Count: &two}, {InstanceType: b, Count: &one}}},
		{Name: "y", BorrowLimitPercent: &all, Quotas: []model.Quota{{InstanceType: a, Count: &one}, {InstanceType: b, Count: &one}}},
	}
	c.Policy.Preemption = model.PreemptImmediate
	c.Policy.IdleComputeAllocation = model.FairShare
	zero := int64(0)
	c.Policy.FairShareMinRuntimeSeconds = &zero
	rebalance := true
	c.Policy.FairShareRebalance = &rebalance
	p := newDiffPair(t, c)
	if bug != nil {
		bug(p.inc)
	}
	sub := func(name, team, typ string, nodes int, at time.Time) {
		spec := model.TaskSpec{Name: name, Team: team, InstanceType: typ, Nodes: nodes}
		if err := p.both(func(s *Scheduler) error { return s.Submit(spec, at) }); err != nil {
			t.Fatal(err)
		}
	}
	now := epoch
	sub("x-a-own", "x", a, 2, now)
	sub("x-a-borrowed", "x", a, 6, now)
	sub("lender-b", "lender", b, 1, now)
	sub("y-b-own", "y", b, 1, now)
	for k := 0; k < 3; k++ {
		sub("y-b-borrowed-"+string(rune('0'+k)), "y", b, 1, now)
	}
	sub("x-b-own", "x", b, 1, now)
	if err := memoCycles(p, now); err != nil {
		return err
	}
	// Fair-share victims must be cheap under Immediate (preempt.go): y's
	// borrowed tasks checkpoint when x's task arrives, and x's completion
	// on A comes within the same minute of the cost clock.
	now = now.Add(2 * time.Minute)
	for k := 0; k < 3; k++ {
		name := "y-b-borrowed-" + string(rune('0'+k))
		if err := p.both(func(s *Scheduler) error { return s.Checkpoint(name, now) }); err != nil {
			t.Fatal(err)
		}
	}
	sub("x-b-more", "x", b, 1, now)
	if err := memoCycles(p, now); err != nil {
		return err
	}
	if w := p.ref.tasks["x-b-more"]; w.state != pending {
		t.Fatalf("x-b-more is %v before the completion: the setup does not hold it back", w.state)
	}
	now = now.Add(5 * time.Second)
	if err := p.both(func(s *Scheduler) error { return s.Complete("x-a-borrowed") }); err != nil {
		t.Fatal(err)
	}
	if err := memoCycles(p, now); err != nil {
		return err
	}
	if w := p.ref.tasks["x-b-more"]; w.state != running {
		t.Fatalf("x-b-more is %v (%s) after x's share fell: the setup does not preempt by fair share", w.state, w.wait.Message())
	}
	return nil
}
