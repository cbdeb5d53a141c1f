package core

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestHoldJumpAgedShape: the one-input benchmark's aged shape, small (as
// TestStopWithAHoldInPlace). After each completion the team left below its
// quota takes the hold behind other teams' borrowing heads; the walk defers
// those teams' tails (their quota refuses them) and goes on with the
// taker's (holdjump.go). The decision, the waiting list and the next
// wake-up equal the full rescan's, and the walks jump.
func TestHoldJumpAgedShape(t *testing.T) {
	inc, ref, now := agedPair(t)
	r := rand.New(rand.NewSource(2))
	now = now.Add(time.Second)
	jumps := inc.jump.jumps
	for k := 0; k < 12; k++ {
		if _, err := agedCompletion(t, inc, ref, r, now, k); err != nil {
			t.Fatal(err)
		}
	}
	if inc.jump.jumps == jumps {
		t.Fatal("no walk jumped: the test does not exercise holdjump.go")
	}
	t.Logf("%d of 12 walks jumped, deferring %d team tails", inc.jump.jumps-jumps, inc.jump.teams)
}

// TestDifferentialCatchesBrokenHoldJump injects a bug into the hold jump
// (breakJumpBlind: it defers tails whose quota passes, whose victim searches
// read the nodes, hence the hold) and requires the comparison with the full
// rescan to see it. The random differential runs reach that state too
// rarely to be the proof (no difference in 70 seeds), so the case is built:
// one node has 6 GPUs free; on another, team c's borrowed 4-GPU task (dear)
// fills the node with c's own. Team a's 8-GPU task, past its starvation
// bound, fits nowhere and searches no victims (a never reclaims): it takes
// the hold on the 6-GPU node. Team b's gang of two 4-GPU pods, within its
// quota and just submitted, finds c's task as a victim before the hold
// (the 6-GPU node and the freed 4 GPUs), not yet paid for: it waits for its
// payback. With the hold in place the same search finds nothing. The walk
// tries a's, b's and f's first tasks (b's marks the type unpaid, a's asks
// for a wake-up before the cost clock's tick), and its check then jumps:
// team e's tail, refused by its quota, is deferred (by the refusal jump,
// refusejump.go, which now comes first; the hold jump then finds no other
// team to defer); b's walks on and is tried before a's holder, as in the
// full walk. Deferred with the bug (by the hold jump), b's gang's reason
// is rendered with the hold in place.
func TestDifferentialCatchesBrokenHoldJump(t *testing.T) {
	if err := holdJumpCase(t, false, false); err != nil {
		t.Fatal(err)
	}
	if err := holdJumpCase(t, true, false); err == nil {
		t.Fatal("with a hold jump that defers tails whose reasons read the hold, the cores still agree")
	} else {
		t.Logf("with the bug injected, as it must: %v", err)
	}
}

// TestDifferentialCatchesBrokenHoldJumpRank: the same case with rank
// preemption (TaskRanking, every team preempting its own lower-priority
// tasks; none has any here, so rankBlocks passes them all): the jump now
// defers e's tail too (holdrank.go), and breakJumpRank, which skips the
// rest of holdBlind for a team with rank preemption, defers b's gang with
// it, whose reason then reads the hold.
func TestDifferentialCatchesBrokenHoldJumpRank(t *testing.T) {
	if err := holdJumpCase(t, false, true); err != nil {
		t.Fatal(err)
	}
	if err := holdJumpCase(t, true, true); err == nil {
		t.Fatal("with a hold jump that defers rank-preempting tails whose reasons read the hold, the cores still agree")
	} else {
		t.Logf("with the bug injected, as it must: %v", err)
	}
}

func holdJumpCase(t *testing.T, bug, rank bool) error {
	gpus := func(n int64) *int64 { return &n }
	hundred := 100
	team := func(name string, g int64, l model.Lending, r model.ReclaimWithinGroup) model.Team {
		return model.Team{Name: name, Lending: l, ReclaimWithinGroup: r, BorrowLimitPercent: &hundred,
			Quotas: []model.Quota{{InstanceType: benchType, GPUs: gpus(g)}}}
	}
	bound := int64(600)
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: benchType, Count: 4}},
		Teams: []model.Team{team("a", 24, model.LendAndBorrow, model.ReclaimNever), team("b", 16, model.LendAndBorrow, model.ReclaimAny),
			team("c", 4, model.LendAndBorrow, model.ReclaimAny), team("e", 0, model.LendOnly, model.ReclaimAny),
			team("f", 24, model.LendOnly, model.ReclaimNever)},
		Policy: model.Policy{StarvationBoundSeconds: &bound},
	}
	if rank {
		c.Policy.TaskPrioritization = model.TaskRanking
		for k := range c.Teams {
			c.Teams[k].PreemptTeamTasks = model.PreemptLowerPriority
		}
	}
	p := newDiffPair(t, c)
	p.inc.SetLazyWaiting(true)
	p.inc.breakJumpBlind = bug && !rank
	p.inc.breakJumpRank = bug && rank
	task := func(name, tm string, g int64, n int, submitted time.Time) model.TaskSpec {
		s := model.TaskSpec{Name: name, Team: tm, InstanceType: benchType, Nodes: n, SubmitTime: submitted}
		s.PerNode.GPUs = g
		return s
	}
	t0 := epoch
	step := func(at time.Time, specs ...model.TaskSpec) error {
		for _, spec := range specs {
			if err := p.both(func(s *Scheduler) error { return s.Submit(spec, at) }); err != nil {
				return err
			}
		}
		return cycleBoth(p.inc, p.ref, at, fmt.Sprintf("cycle at %v", at.Sub(t0)))
	}
	// c's two 4-GPU tasks fill one node (the second borrows), a's and f's
	// 8-GPU tasks two more, f's 2-GPU task the last.
	for k, spec := range []model.TaskSpec{task("c-own", "c", 4, 1, time.Time{}), task("c-bor", "c", 4, 1, time.Time{}),
		task("a-run", "a", 8, 1, time.Time{}), task("f-run", "f", 8, 1, time.Time{}), task("f-two", "f", 2, 1, time.Time{})} {
		if err := step(t0.Add(time.Duration(k)*time.Second), spec); err != nil {
			return err
		}
	}
	// 5 s before a cost-clock tick, so that no tail's wait pays a restart by
	// the tick (the stop's rent bound, stopcheck.go).
	now := t0.Add(1195 * time.Second)
	if err := step(now.Add(-700*time.Second), task("a-star", "a", 8, 1, time.Time{})); err != nil {
		return err
	}
	if err := step(now.Add(-597*time.Second), task("a-next", "a", 8, 1, t0.Add(10*time.Second))); err != nil {
		return err
	}
	s := p.inc
	it := s.types[s.typeIdx[benchType]]
	err := step(now, task("e-wait", "e", 1, 1, t0.Add(9*time.Second)), task("b-first", "b", 8, 1, t0.Add(11*time.Second)),
		task("f-wait", "f", 8, 1, t0.Add(12*time.Second)), task("b-gang", "b", 4, 2, t0.Add(13*time.Second)))
	if err != nil {
		return err
	}
	if !bug && (s.jump.jumps+s.refuse.jumps != 1 || it.holder == nil || it.holder.spec.Name != "a-star" ||
		s.tasks["b-gang"].wait.Code != model.WaitingForPayback) {
		t.Fatalf("%d jumps, holder %s, b-gang waits %s: the case is not the one described", s.jump.jumps, nameOf(it.holder),
			s.tasks["b-gang"].wait.Code)
	}
	return nil
}

func nameOf(t *task) string {
	if t == nil {
		return "none"
	}
	return t.spec.Name
}
