package core

import (
	"fmt"
	"slices"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// fairKnobs makes randomPolicy also draw the fairSharePreemption list
// (TestIncrementalMatchesFullRescanFairKnobs, TestRandomInvariantsFairKnobs).
// Off, the draws are those of the seeds the other random tests were written
// for.
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
	for seed := 1; seed <= seeds; seed++ {
		if err := differentialRun(int64(4000+seed), ops, ""); err != nil {
			t.Fatal(err)
		}
	}
}
