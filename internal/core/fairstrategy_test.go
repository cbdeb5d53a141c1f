package core

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// fairKnobs makes randomPolicy also draw the fairSharePreemption list, with
// fair share, rebalancing and victims cheap for an hour, and randomTeam
// put every team in one group that lends and borrows
// (TestIncrementalMatchesFullRescanFairKnobs, TestRandomInvariantsFairKnobs):
// with the other tests' draws, rebalances almost never happen (none in six
// seeds). Off, the draws are those of the seeds the other random tests were
// written for.
var fairKnobs bool

// randomInitialOnly counts, in the random runs, victim teams whose
// FairShare victims only the initial-share strategy allows
// (checkFairStrategies), so that the knob's test is not vacuous.
var randomInitialOnly int

// checkFairStrategies checks a borrowing preemption of tk (victims vs still
// removed, tk not yet admitted) against rule 5's strategies, from the
// outcome alone: for each other team whose tasks go as FairShare victims,
// with tk's team's share with tk (mine) and that team's share now,
//   - final: mine is at or below the team's share now (or the team has
//     weight 0 and tk's a positive one), LessThanOrEqualToFinalShare;
//   - initial: mine is strictly below the team's share with one of its
//     victims put back, LessThanInitialShare;
//
// and the policy's list must allow the one that holds. Both are what the
// last victim taken from the team satisfied when it was taken: the team's
// share only rises as victims are given back, and tk's team gives back own
// victims only while the strategies still hold (chooseVictims' fair). A
// team that also loses tasks by borrowWithinGroup (for priority, rule 4) is
// not checked: those lower its share past what rule 5 weighed.
func checkFairStrategies(s *Scheduler, tk *task, vs []victim) error {
	tm, i := tk.team, tk.typ.idx
	mine := s.share(tm, i, tk.total)
	var teams []*team
	over := map[*team]bool{}
	for _, v := range vs {
		if v.t.team == tm {
			continue
		}
		if s.borrowOver(tk, v.t) {
			over[v.t.team] = true
		}
		if !slices.Contains(teams, v.t.team) {
			teams = append(teams, v.t.team)
		}
	}
	strats := s.policy.FairShareStrategies()
	for _, vt := range teams {
		if over[vt] {
			continue
		}
		final := s.fairToTake(tm, mine, vt)
		initial := false
		for _, v := range vs {
			if v.t.team == vt && mine < s.share(vt, i, v.t.total) {
				initial = true
			}
		}
		ok := (final && strats[0] == model.LessThanOrEqualToFinalShare) || (initial && slices.Contains(strats, model.LessThanInitialShare))
		if !ok {
			return fmt.Errorf("%s (team %s, share with it %g) took team %s's tasks as FairShare victims, which %v does not allow: "+
				"%s's share after is %g (final-share strategy holds: %v; initial-share strategy holds: %v)",
				tk.spec.Name, tm.spec.Name, mine, vt.spec.Name, strats, vt.spec.Name, s.share(vt, -1, resource.Zero), final, initial)
		}
		if !final {
			randomInitialOnly++
		}
	}
	return nil
}

// TestRandomInvariantsFairKnobs is TestRandomInvariants with the policy's
// fairSharePreemption list among the draws (fairKnobs); every borrowing
// preemption is checked against it (checkFairStrategies).
func TestRandomInvariantsFairKnobs(t *testing.T) {
	fairKnobs = true
	defer func() { fairKnobs = false }()
	seeds, ops := 30, 2000
	if testing.Short() {
		seeds, ops = 8, 500
	}
	randomInitialOnly = 0
	for seed := int64(4001); seed <= int64(4000+seeds); seed++ {
		randomRun(t, seed, ops)
	}
	t.Logf("%d victim teams allowed by the initial-share strategy alone", randomInitialOnly)
	if !testing.Short() && randomInitialOnly == 0 {
		t.Fatal("no preemption used the initial-share strategy: the test would not exercise it")
	}
}

// TestIncrementalMatchesFullRescanFairKnobs is the differential test with
// the policy's fairSharePreemption list among the draws (fairKnobs). The
// gate's -run pattern (TestIncrementalMatchesFullRescan) runs it,
// TASKGOV_DIFF_SEEDS seeds.
func TestIncrementalMatchesFullRescanFairKnobs(t *testing.T) {
	fairKnobs = true
	defer func() { fairKnobs = false }()
	seeds, ops := envInt("TASKGOV_DIFF_SEEDS", 30), envInt("TASKGOV_DIFF_OPS", 2000)
	if testing.Short() {
		seeds, ops = 8, 500
	}
	randomInitialOnly = 0
	for seed := 1; seed <= seeds; seed++ {
		if err := differentialRun(int64(4000+seed), ops, ""); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d victim teams allowed by the initial-share strategy alone", randomInitialOnly)
	if !testing.Short() && randomInitialOnly == 0 {
		t.Fatal("no preemption used the initial-share strategy: the test would not exercise it")
	}
}

// TestCheckFairStrategiesCatchesTheWrongList: the outcome check is not
// vacuous. In the state of scenario kueue/fair-own-and-other-over-quota
// (a borrows 2 nodes with a-incoming after its own a1-low goes; b borrows
// 3, all in one 3-node task), the preemption made under both strategies
// takes b's task by the second alone: the check passes it under that list
// and under [LessThanInitialShare], and refuses it under the default
// list. Under the default list itself the same state preempts nothing.
func TestCheckFairStrategiesCatchesTheWrongList(t *testing.T) {
	both := []model.FairShareStrategy{model.LessThanOrEqualToFinalShare, model.LessThanInitialShare}
	run := func(list []model.FairShareStrategy, hook func(s *Scheduler, tk *task, vs []victim)) model.Decision {
		three := int64(3)
		var teams []model.Team
		for _, n := range []string{"a", "b", "c"} {
			teams = append(teams, model.Team{Name: n, Group: "all", BorrowLimitPercent: ip(500), PreemptTeamTasks: model.PreemptLowerPriority,
				Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: &three}}})
		}
		c := model.Cluster{NodeGroups: []model.NodeGroup{{Name: "n", InstanceType: "ml.p5.48xlarge", Count: 9}}, Teams: teams,
			Policy: model.Policy{Preemption: model.PreemptImmediate, TaskPrioritization: model.TaskRanking, IdleComputeAllocation: model.FairShare,
				FairShareMinRuntimeSeconds: i64(60), FairSharePreemption: list,
				PriorityClasses: []model.PriorityClass{{Name: "zero", Weight: 50}, {Name: "minus1", Weight: 40}}}}
		s, err := New(c, 1)
		if err != nil {
			t.Fatal(err)
		}
		s.onBorrowVictims = func(tk *task, vs []victim) { hook(s, tk, vs) }
		task := func(name, team, prio string, nodes int) model.TaskSpec {
			return model.TaskSpec{Name: name, Team: team, Priority: prio, InstanceType: "ml.p5.48xlarge", Nodes: nodes}
		}
		for _, ts := range []model.TaskSpec{task("a1-low", "a", "minus1", 2), task("a2-low", "a", "minus1", 1), task("b1", "b", "zero", 3), task("b2", "b", "zero", 3)} {
			if err := s.Submit(ts, epoch); err != nil {
				t.Fatal(err)
			}
		}
		s.Schedule(epoch)
		at := epoch.Add(10 * time.Minute)
		for _, n := range []string{"a1-low", "a2-low", "b1", "b2"} {
			_ = s.Checkpoint(n, at)
		}
		if err := s.Submit(task("a-incoming", "a", "zero", 4), at); err != nil {
			t.Fatal(err)
		}
		return s.Schedule(at)
	}
	checked := 0
	d := run(both, func(s *Scheduler, tk *task, vs []victim) {
		checked++
		for _, c := range []struct {
			list []model.FairShareStrategy
			ok   bool
		}{{both, true}, {[]model.FairShareStrategy{model.LessThanInitialShare}, true}, {nil, false}} {
			s.policy.FairSharePreemption = c.list
			if err := checkFairStrategies(s, tk, vs); (err == nil) != c.ok {
				t.Errorf("under %v: check gives %v, want pass %v", c.list, err, c.ok)
			}
		}
		s.policy.FairSharePreemption = both
	})
	if checked != 1 || len(d.Preemptions) != 2 {
		t.Fatalf("under both strategies: %d borrowing preemptions checked, decision %v", checked, d.Preemptions)
	}
	if d := run(nil, func(*Scheduler, *task, []victim) { t.Error("the default list preempted") }); len(d.Preemptions) != 0 {
		t.Fatalf("under the default list: %v", d.Preemptions)
	}
}
