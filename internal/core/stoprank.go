package core

import "github.com/taskgov/taskgov/internal/model"

// The early stop under rank preemption (stop.go's bounds, for a team whose
// higher-priority tasks may preempt its lower-priority ones).
//
// Under TaskRanking with PreemptTeamTasks LowerPriority, a tail task t may
// search its own team's running tasks of lower rank (candidates: those of
// rank below t's not started or preempted in this cycle; priorityVictim
// spares none under Payback). The check used to refuse every such team.
// Under preemption Payback it need not, by what a search does with them
// (tryPreempt):
//   - every search runs on cheap candidates only (cheapVictims), and the
//     guarantee's second search (reclaimPass) keeps own candidates only when
//     cheap; so an own candidate that is not cheap is never searched. It only
//     makes cheapVictims report one that is dear, and the try mark the type
//     unpaid (markUnpaid);
//   - an own candidate turns cheap only by a checkpoint (an input, which
//     walks the type when it is marked unpaid) or a restart: riskedWork only
//     grows with the cost clock, so one that is dear at S stays dear until
//     the type's next walk.
// So when every own candidate of the team's tail is dear at the cost clock
// and the type is already marked unpaid, the tail's searches see the
// candidates they would see without rank preemption, and their tries change
// what they would change then: the rest of the check (stop.go) bounds that.
// The candidates of the tail are those below the rank of its first task: a
// team's byType list is sorted, higher rank first (sortQueue), and the tail
// is the list from the team's head on.
//
// One more search comes with rank preemption: a team that does not borrow
// (its usage before this cycle's admissions within its quota: preemptFor)
// searches within quota for a task that would borrow too, with other teams'
// borrowed tasks as candidates. Its quota bound (quotaWithout) takes off only
// the team's own candidates it searches, the cheap ones, so with none such a
// search fails there, changing nothing but the memo, after asking for the
// cost clock's next tick (when a candidate is cheap) and marking the type
// unpaid (when one is dear). The check wants the type marked unpaid and its
// wake-up collected at or before the next tick whenever another team has a
// reclaimable task.
//
// Under preemption Immediate own candidates are taken at any cost: a team
// with rank preemption still blocks the stop. breakStopRank (test only)
// ignores own cheap candidates, the injected bug the differential test must
// catch (TestDifferentialCatchesBrokenStopRank).

// rankBlocks reports whether tm's tail in type c.i, with rank preemption,
// may search its own team's work or make a within-quota search the rest of
// the check does not bound.
func (s *Scheduler) rankBlocks(tm *team, c *stopCheck) bool {
	if s.policy.Preemption != model.PreemptPayback {
		return true
	}
	i := c.i
	top, ok := s.tailTopRank(tm, i)
	if !ok {
		return false // no tail
	}
	unpaid := i < len(s.unpaid) && s.unpaid[i]
	at := s.costClock()
	for _, v := range tm.run[i] {
		if v.rank >= top || v.touchedIn == s.cycle {
			continue
		}
		if !unpaid || (s.cheap(v, at) && !s.breakStopRank) {
			return true
		}
	}
	if !s.settled(tm, i).LessEq(tm.quota[i]) {
		return false // it borrows: it searches within quota only for a task in quota, as without rank preemption
	}
	if c.bor.othersThan(tm) && tm.spec.ReclaimWithinGroup != model.ReclaimNever {
		return !unpaid || s.nextTick().Before(c.cur)
	}
	return false
}

// tailTopRank is the rank of the first task of tm's tail of type i (the
// highest of the tail's), and whether it has one. The tail starts at the
// team's head, one before its cursor (pushNext); for a team whose list the
// walk used up, the last task tried stands in for it (a bound, as high).
func (s *Scheduler) tailTopRank(tm *team, i int) (int, bool) {
	if len(tm.byType) <= i {
		return 0, false
	}
	q := tm.byType[i]
	for _, t := range q[max(tm.cursors[i]-1, 0):] {
		if t.state == pending && t.touchedIn != s.cycle {
			return t.rank, true
		}
	}
	return 0, false
}
