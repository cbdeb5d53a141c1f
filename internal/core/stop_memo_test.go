package core

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// The early stop's two caches within a walk: mayAdmit's "nothing of this
// team can be admitted" (noAdmit, kept until the walk's next preemption:
// freed) and tailDue's answer (dueMemo, kept while the team's usage is the
// same, or higher with the due's task still fitting: stopwake.go). A
// preemption in the walk frees nodes its preemptor may not use up, and an
// admission changes its team's usage: the first makes a kept no stale, the
// second a kept due whose task no longer fits.
// The random differential run almost never reaches these cases (a 120-seed
// run: 12 of 29,420 stops set the wake-up; 60,000 inputs of 30 seeds never
// asked tailDue again after a usage change), so two constructed walks do,
// each compared with the full rescan and each made to fail with its cache
// broken on purpose (breakNoAdmitGen, breakDueMemo).
//
// The setup: 24 nodes of 8 GPUs; teams a, b, c with 8 nodes of quota each.
// Team a runs 60 of its 64 GPUs (seven whole nodes and 4 GPUs of g-7), does
// not borrow and never reclaims (so no search of its own holds the stop
// back); c runs its quota and borrows b's (c0, c1: 8 nodes each); g-7's 4
// GPUs are the only free ones. Preemption is immediate (no payback ticks
// among the wake-ups).
func memoPair(t *testing.T) (diffPair, func(name, team string, nodes int, gpus int64, at, submitted time.Time)) {
	t.Helper()
	var c model.Cluster
	c.NodeGroups = []model.NodeGroup{{Name: "g", InstanceType: benchType, Count: 24}}
	eight, all := int64(8), 100
	for _, n := range []string{"a", "b", "c"} {
		c.Teams = append(c.Teams, model.Team{Name: n, BorrowLimitPercent: &all,
			Quotas: []model.Quota{{InstanceType: benchType, Count: &eight}}})
	}
	c.Policy.Preemption = model.PreemptImmediate
	c.Teams[0].ReclaimWithinGroup, c.Teams[0].Lending = model.ReclaimNever, model.LendOnly
	p := newDiffPair(t, c)
	sub := func(name, team string, nodes int, gpus int64, at, submitted time.Time) {
		spec := model.TaskSpec{Name: name, Team: team, InstanceType: benchType, Nodes: nodes, SubmitTime: submitted}
		spec.PerNode.GPUs = gpus
		if err := p.both(func(s *Scheduler) error { return s.Submit(spec, at) }); err != nil {
			t.Fatal(err)
		}
	}
	for k := 0; k < 7; k++ {
		sub(fmt.Sprintf("a%d", k), "a", 1, 0, epoch, epoch)
	}
	sub("a7", "a", 1, 4, epoch, epoch)
	sub("c0", "c", 8, 0, epoch, epoch)
	sub("c1", "c", 8, 0, epoch, epoch)
	settle(p.inc, epoch)
	settle(p.ref, epoch)
	return p, sub
}

// memoCycles runs cycles on both cores from now and returns the first
// difference in decisions, waiting lists or next wake-up, or nil.
func memoCycles(p diffPair, now time.Time) error {
	for cyc := 0; cyc < 3; cyc++ {
		a, b := p.inc.Schedule(now), p.ref.Schedule(now)
		a.Waiting, b.Waiting = p.inc.Waiting(), p.ref.Waiting()
		switch {
		case !reflect.DeepEqual(a, b):
			return fmt.Errorf("cycle %d: incremental and full rescan differ:\n%s", cyc, firstDiff(a, b))
		case p.inc.stops.renderHits != 0:
			return fmt.Errorf("cycle %d: %d deferred tries would have changed something", cyc, p.inc.stops.renderHits)
		case !p.inc.nextWake.Equal(p.ref.nextWake):
			return fmt.Errorf("cycle %d: next wake-up %v, the full rescan's %v", cyc, p.inc.nextWake.Sub(epoch), p.ref.nextWake.Sub(epoch))
		}
		now = now.Add(time.Second)
	}
	return nil
}

// noAdmitRun: y (2 nodes of 1 GPU) is tried first and fails (one node has
// free GPUs); the check then finds nothing of a's admissible (y2 likewise)
// and notes it, while b0 holds the stop back (it reclaims). b0 preempts c1
// (8 nodes) and uses one: after that change y2 fits, and the full walk
// admits it. A noAdmit note that outlives the change stops the walk first.
// x (a whole node, beyond a's quota) stays waiting behind them; without it
// the broken note happens not to be read before y2's try.
func noAdmitRun(t *testing.T, bug bool) error {
	p, sub := memoPair(t)
	p.inc.breakNoAdmitGen = bug
	now := epoch.Add(time.Minute)
	sub("y", "a", 2, 1, now, now)
	sub("b0", "b", 1, 0, now, now)
	sub("b-big", "b", 9, 0, now, now)
	sub("y2", "a", 2, 1, now, now)
	sub("x", "a", 1, 0, now, now)
	return memoCycles(p, now)
}

// dueMemoRun: z (2 nodes of 2 GPUs, pending since T, queued last by its
// submit time) fits a's quota at 60 GPUs; its starvation due T+30m is the
// tail's earliest (y's, tried first, is T+30m5s), and tailDue keeps it.
// b0 reclaims c1; y2 (2 GPUs) then starts, a runs 62, and z no longer fits
// the quota: its try asks for no wake-up, the full walk's next is y's. A
// due kept across the usage change asks for z's.
func dueMemoRun(t *testing.T, bug bool) error {
	p, sub := memoPair(t)
	p.inc.breakDueMemo = bug
	at := epoch.Add(time.Minute)
	sub("z", "a", 2, 2, at, at.Add(20*time.Second))
	now := at.Add(5 * time.Second)
	sub("y", "a", 2, 1, now, at)
	sub("b0", "b", 1, 0, now, at.Add(time.Second))
	sub("b-big", "b", 9, 0, now, at.Add(time.Second))
	sub("y2", "a", 2, 1, now, at.Add(2*time.Second))
	return memoCycles(p, now)
}

// TestDifferentialCatchesStaleNoAdmit: mayAdmit's note must not outlive a
// preemption in the walk (stop.go's freed).
func TestDifferentialCatchesStaleNoAdmit(t *testing.T) {
	if err := noAdmitRun(t, false); err != nil {
		t.Fatal(err)
	}
	if err := noAdmitRun(t, true); err == nil {
		t.Fatal("with mayAdmit's note kept across a preemption in the walk, the cores still agree")
	} else {
		t.Logf("caught, as it must be: %v", err)
	}
}

// TestDifferentialCatchesStaleTailDue: tailDue's answer must not outlive a
// change of its team's usage (stopwake.go's dueMemo).
func TestDifferentialCatchesStaleTailDue(t *testing.T) {
	if err := dueMemoRun(t, false); err != nil {
		t.Fatal(err)
	}
	if err := dueMemoRun(t, true); err == nil {
		t.Fatal("with tailDue's answer kept across an admission of its team, the cores still agree")
	} else {
		t.Logf("caught, as it must be: %v", err)
	}
}
