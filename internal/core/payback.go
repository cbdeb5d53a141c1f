package core

import (
	"math"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// paidBack is the payback rule (policy preemption: Payback, the default):
// a task may preempt only once the GPU time it has spent waiting is at least
// what its victims would lose, each weighted by how often it was already
// preempted (victimCost), but for a guaranteed task's reclaim victims,
// priced unweighted (paybackPrice). It is the rent-or-buy rule of online algorithms:
// waiting costs the task its GPUs for every second; preempting costs the
// victims' lost work once; one buys when the rent paid reaches the price. A
// preemption made after room would have freed on its own is one the wait
// avoided.
//
// To borrow, the price is the victims' loss now: it grows while the task
// waits, until they checkpoint, so such preemptions come soon after a
// checkpoint, when they are cheap, or not at all. A task that ends within
// its quota (guaranteed) pays the price as it was when its wait began (work
// a victim does meanwhile is rent paid, not a dearer price), so it waits at
// most that price ÷ its GPUs: its guarantee is bounded. Waiving the payback
// for a within-quota task past the starvation bound was tried instead: on
// the synthetic traces it lost more work.
func (s *Scheduler) paidBack(t *task, victims []victim, guaranteed bool) bool {
	if s.policy.Preemption == model.PreemptImmediate {
		return true
	}
	cost := s.paybackPrice(t, victims, guaranteed)
	rate := s.weight(t)
	if rate <= 0 || cost <= 0 {
		return true
	}
	if guaranteed && s.cc.inQuota {
		return s.rentByNextLook(t) >= cost
	}
	return s.paidRent(t) >= cost
}

// paybackPrice is what t's wait must pay before it preempts victims (see
// paidBack): their costs, each as it was when t's wait began if t is
// guaranteed. A guaranteed task's reclaim victims (other teams' borrowed
// tasks) are priced at the work they would lose, without victimCost's
// weight for their earlier preemptions: that weight keeps priority and fair
// share from bouncing the same task, and still orders the victims and
// decides which are cheap, but it does not make an owner wait longer for
// its own quota (rule 10, "A reclaim pays the victims' loss").
func (s *Scheduler) paybackPrice(t *task, victims []victim, guaranteed bool) float64 {
	cost := 0.0
	for _, v := range victims {
		if !guaranteed {
			cost += v.cost
			continue
		}
		// Its quota is its due: the price is fixed when its wait began
		// (work a victim does meanwhile is rent paid, not a dearer
		// price), so it waits at most that price ÷ its GPUs.
		at := t.pendingSince
		if at.Before(v.t.startedAt) {
			at = v.t.startedAt
		}
		then := s.riskedWork(v.t, at)
		if v.t.team != t.team {
			cost += math.Min(v.lost, then)
		} else {
			cost += math.Min(v.cost, victimCost(v.t, then))
		}
	}
	return cost
}

// paidRent is the GPU time t's wait has paid, on the cost clock.
func (s *Scheduler) paidRent(t *task) float64 {
	return max(s.costClock().Sub(t.pendingSince).Seconds(), 0) * s.weight(t)
}

// rentByNextLook is the GPU time t's wait will have paid by the cost
// clock's next tick, when an unpaid search is looked at again. paidBack
// reads it for a task that fits its team's quota (s.cc.inQuota, set by
// preemptFor): its price is fixed when its wait began, and a task that does
// not preempt at this tick waits at least until the next one, so it buys at
// the tick from which the rent it pays before it can decide again reaches
// the price (ski rental in discrete time: buy on the day that day's rent
// would bring the total to the price), not a tick later. Counting only the
// rent already paid kept each guaranteed task waiting up to a minute past
// its payback, with its team's guarantee broken and its victims' loss
// growing. A borrower's price grows while it waits, and a task that takes
// its own team's work to get back within quota is not owed that quota:
// both still pay in full by the tick they preempt at (applied to them, it
// made priority preemptions 14% more frequent on the 95% trace).
// SIMULATOR.md, "The payback decided at the tick".
func (s *Scheduler) rentByNextLook(t *task) float64 {
	return max(s.nextTick().Sub(t.pendingSince).Seconds(), 0) * s.weight(t)
}

// maxPaybackWait is the longest payback a wait reason gives a time for.
const maxPaybackWait = 365 * 24 * time.Hour

// paybackWait is the wait reason of a task whose victims are found but not
// yet paid for (rule 10): the kind of preemption, the victims' team when
// they are all of one other team, the price and the rent paid. A guaranteed
// task's price is fixed when its wait began, so At is the first cost-clock
// tick at which it is paid; a borrower's price grows while its victims run,
// so it has no such time (At 0). Every number moves only when the cost
// clock ticks, and an unpaid search wakes the type at each tick
// (unlessUnpaid), so the reason is the same in incremental and full cycles.
func (s *Scheduler) paybackWait(t *task, victims []victim, mode preemptMode) *model.WaitReason {
	guaranteed := mode == modeGuaranteed
	price := s.paybackPrice(t, victims, guaranteed)
	r := model.WaitReason{Code: model.WaitingForPayback, InstanceType: t.typ.spec.Name,
		Need: int64(math.Ceil(price)), Used: int64(s.paidRent(t)), Limit: t.total.GPUs}
	var priority, others bool
	team := ""
	for _, v := range victims {
		if v.t.team == t.team || (!guaranteed && s.borrowOver(t, v.t)) {
			priority = true // its own, or another team's by borrowWithinGroup
			continue
		}
		if others && team != v.t.spec.Team {
			team = "" // several teams: none named
		} else if !others {
			team = v.t.spec.Team
		}
		others = true
	}
	other := model.PaybackReclaim
	if !guaranteed {
		other = model.PaybackFairShare
	}
	switch {
	case priority && others:
		r.Detail = model.PaybackPriority + " and " + other
	case others:
		r.Detail = other
	default:
		r.Detail = model.PaybackPriority
	}
	r.Team = team
	// A light task (a few vCPU without GPUs) may need years to pay; past
	// maxPaybackWait no time is given (rule 8's hold bounds its wait).
	if w := s.weight(t); guaranteed && w > 0 && price/w <= maxPaybackWait.Seconds() {
		r.At = paybackTick(t.pendingSince, price, w)
		// Within its quota it preempts at the tick before the one at which
		// its rent reaches the price (rentByNextLook).
		if s.cc.inQuota {
			r.At -= costQuantum
			r.Ahead = true
		}
	}
	return s.record(r)
}

// paybackTick is the first cost-clock tick (Unix seconds) at which a wait
// begun at since has paid price at w GPUs, counted as paidRent counts it:
// the payback is looked at on ticks only, and since may hold a fraction of
// a second (a server's clock), which a whole-second estimate would drop,
// giving a tick at which the rent is still short.
func paybackTick(since time.Time, price, w float64) int64 {
	rent := func(tick int64) float64 { return max(time.Unix(tick, 0).Sub(since).Seconds(), 0) * w }
	at := since.Add(time.Duration(price / w * float64(time.Second))).Unix()
	at -= ((at % costQuantum) + costQuantum) % costQuantum
	for rent(at) < price {
		at += costQuantum
	}
	for rent(at-costQuantum) >= price {
		at -= costQuantum
	}
	return at
}

// cheapReclaim reports whether victims, found among cheap candidates for a
// task that ends within its quota (mode), are all other teams' borrowed
// tasks: a reclaim whose victims lose at most about a restart. It needs no
// payback: the compute was lent on the condition that it comes back, the
// price is small and bounded, and every minute the owner waits for it
// breaks its guarantee. Making it wait out the price (up to two restarts'
// worth of GPU time, looked at on cost-clock ticks) kept a third of the
// guarantee violations of the synthetic traces and saved no work:
// SIMULATOR.md, "Reclaim at once when it is cheap".
func (s *Scheduler) cheapReclaim(t *task, victims []victim, mode preemptMode) bool {
	if mode != modeGuaranteed || victims == nil {
		return false
	}
	for _, v := range victims {
		if v.t.team == t.team {
			return false
		}
	}
	return true
}

// cheap reports whether preempting v at the cost-clock time at is cheap
// (rule 10): its cost (victimCost: risked work weighted by its earlier
// preemptions) is at most twice its restart, weight × 2 ×
// max(restartCostSeconds, one cost-clock tick). Every cheapness test (the
// searches here and the early stop's bounds, stop.go) reads this one.
func (s *Scheduler) cheap(v *task, at time.Time) bool {
	window := float64(max(*s.policy.RestartCostSeconds, costQuantum))
	return victimCost(v, s.riskedWork(v, at)) <= 2*window*s.weight(v)
}

// cheapVictims splits candidates for preemption Payback: it returns those
// that are cheap now (cheap), whether any is not (dear), and whether any of
// another team is not (dearOthers). A victim is cheap when its cost (lost
// work, weighted by its earlier preemptions: victimCost) is at most twice
// its restart: GPUs × 2 × max(restartCostSeconds, one cost-clock tick). So a
// preemption throws away at most as much progress again as the restart
// costs anyway: a task that checkpointed (or started) within that time, and,
// once preempted, only in the tick of a checkpoint; a task preempted twice
// is never cheap again. On a busy cluster a preemption frees no capacity, it
// only reorders work, and the work it throws away delays every task queued;
// so preemptions for priority and fair share wait for victims' checkpoints.
func (s *Scheduler) cheapVictims(t *task, all []victim) (cheap []victim, dear, dearOthers bool) {
	cheap = s.cc.cheap[:0]
	at := s.costClock()
	for _, v := range all {
		if s.cheap(v.t, at) {
			cheap = append(cheap, v)
			continue
		}
		dear = true
		if v.t.team != t.team {
			dearOthers = true
		}
	}
	s.cc.cheap = cheap
	return cheap, dear, dearOthers
}

// reclaimPass is the guarantee's second search: other teams' borrowed
// tasks at any cost, t's own team's tasks only when cheap.
func (s *Scheduler) reclaimPass(t *task, all []victim) []victim {
	out := s.cc.pass[:0]
	at := s.costClock()
	for _, v := range all {
		if v.t.team != t.team || s.cheap(v.t, at) {
			out = append(out, v)
		}
	}
	s.cc.pass = out
	return out
}

// ownOrCheap keeps t's own team's candidates, those it may take for
// priority by its team's borrowWithinGroup, and the other teams' cheap ones
// (preemption Immediate's fair-share victims); dear reports whether it left
// any out.
func (s *Scheduler) ownOrCheap(t *task, all []victim) (out []victim, dear bool) {
	out = s.cc.pass[:0]
	at := s.costClock()
	for _, v := range all {
		if v.t.team == t.team || s.borrowOver(t, v.t) || s.cheap(v.t, at) {
			out = append(out, v)
		} else {
			dear = true
		}
	}
	s.cc.pass = out
	return out, dear
}

// costQuantum is the tick of the clock victim costs and the payback are
// evaluated on (costClock).
const costQuantum = 60 // seconds

// costClock is now, truncated to a whole costQuantum. Victims' lost work
// (and so their order, which decides whether a search with stillBorrows
// succeeds) and a task's paid-up wait change only when it ticks, so an
// instance type left unevaluated between ticks decides what a full
// evaluation would (dirty.go); a type whose search failed or did not pay is
// evaluated again at the next tick (nextTick).
func (s *Scheduler) costClock() time.Time {
	sec := s.now.Unix()
	return time.Unix(sec-((sec%costQuantum)+costQuantum)%costQuantum, 0).In(s.now.Location())
}

// nextTick is the next time costClock changes.
func (s *Scheduler) nextTick() time.Time {
	return s.costClock().Add(costQuantum * time.Second)
}

// markUnpaid records that type i's evaluation left a victim search failing
// or unpaid, so that a checkpoint of a running task of the type re-evaluates
// it.
func (s *Scheduler) markUnpaid(i int) {
	if len(s.unpaid) != len(s.types) {
		s.unpaid = make([]bool, len(s.types))
	}
	s.unpaid[i] = true
}

// clearUnpaid forgets the marks of the types this cycle evaluates.
func (s *Scheduler) clearUnpaid() {
	for i := range s.unpaid {
		if i < len(s.work) && s.work[i] {
			s.unpaid[i] = false
		}
	}
}
