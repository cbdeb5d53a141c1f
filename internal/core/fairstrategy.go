package core

import "github.com/taskgov/taskgov/internal/model"

// Rule 5's share condition under the policy's fairSharePreemption list
// (docs/SCHEDULING.md, rule 5 and "Fair-share strategies"), applied in
// order as Kueue applies its fair-sharing preemption strategies:
//   - the list's first strategy decides every other-team candidate of a
//     borrowing search (modeBorrow);
//   - when the list has a second one (LessThanInitialShare) and that
//     search finds no victims after refusing some candidate on its share,
//     the search runs again, and a candidate the first refuses may go by
//     the second.
//
// Kueue takes at most one task per victim team by the second strategy; so
// does this, without counting: a borrowing search takes its own victims
// first (category), so the preemptor's share is fixed while other teams'
// candidates are weighed, and a victim team's share only falls as its
// tasks are taken. Once the second strategy took u from team vt where the
// first refused it (mine above vt's share after u), every later candidate
// of vt has a share before it at most vt's share after u: below mine, so
// both strategies refuse it.
//
// With the default list ([LessThanOrEqualToFinalShare]) the searches and
// their outcome are those made before the setting.

// strategyHolds is one strategy's share condition for taking v, a borrowed
// task of another team already removed (simulated), for team tm whose share
// with its task (after its own victims) is mine.
func (s *Scheduler) strategyHolds(st model.FairShareStrategy, tm *team, mine float64, v *task) bool {
	if st == model.LessThanInitialShare {
		// v's team's share before the preemption: with v put back.
		return mine < s.share(v.team, v.typ.idx, v.total)
	}
	return s.fairToTake(tm, mine, v.team)
}

// shareAllows applies the policy's strategies to v: the first alone, or
// also the second when second is set. It sets *refused when none holds.
func (s *Scheduler) shareAllows(second bool, refused *bool, tm *team, mine float64, v *task) bool {
	strats := s.policy.FairShareStrategies()
	if s.strategyHolds(strats[0], tm, mine, v) ||
		(second && s.strategyHolds(model.LessThanInitialShare, tm, mine, v)) {
		return true
	}
	*refused = true
	return false
}

// hasSecondStrategy reports whether the policy lists a second fair-share
// strategy.
func (s *Scheduler) hasSecondStrategy() bool {
	return len(s.policy.FairShareStrategies()) > 1
}
