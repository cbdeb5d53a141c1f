package core

import "github.com/taskgov/taskgov/internal/model"

// The hold jump under rank preemption (holdjump.go, stoprank.go).
//
// A team whose higher-priority tasks may preempt its lower-priority ones
// searches its own running tasks too, so holdBlind refused it, and under
// TaskRanking (the simulator's policy) the jump deferred no team. Under
// preemption Payback that is more than the argument needs: the searches a
// team's own candidates add, where rankBlocks passes the team, all end at
// a bound that reads no hold, with the same memo write and the same
// wake-up at either state:
//   - an own candidate that is not cheap is never searched (cheapVictims
//     keeps the cheap ones; reclaimPass keeps own ones only when cheap); it
//     only marks the type unpaid, which rankBlocks wants set already;
//   - a tail task above an own cheap candidate (they lead the tail) has its
//     searches skipped by the team's memo, or each fails at quotaWithout
//     (usage, quota) or roomBound (the node index, whose buckets count free
//     room whatever the holds) with every own cheap and every reclaimable
//     task gone (ownCheapFail): a superset of any search's candidates, so
//     the real search fails at the same bound, before any placement;
//   - a team that does not borrow searches within quota for tasks past its
//     quota too; with no own cheap candidate for them such a search fails
//     at quotaWithout (it takes off only the team's own candidates);
//   - protectedWait says nothing but under preemption Immediate.
// So a team whose tail rankBlocks passes searches, with rank preemption,
// what it reads without it but for searches that fail before reading a
// node, and what is left of holdBlind's argument (no reclaim within quota,
// no borrowing search with a cheap candidate) decides as for any team.
// rankBlocks is asked again, at the jump's state, with a copy of the check
// (its wake-up is the check's already).
//
// breakJumpRank (test only) skips what is left of holdBlind for a team with
// rank preemption: a tail within its quota that may reclaim is then deferred
// too, and TestDifferentialCatchesBrokenHoldJumpRank must see it.

// rankBlind reports whether tm's tail in type c.i, with rank preemption,
// searches its own candidates only where the search reads no hold (above);
// the rest of holdBlind still applies, unless breakJumpRank.
func (s *Scheduler) rankBlind(tm *team, c *stopCheck) bool {
	if s.policy.Preemption != model.PreemptPayback {
		return false
	}
	cc := *c
	return !s.rankBlocks(tm, &cc)
}
