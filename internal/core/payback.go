package core

import (
	"math"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// paidBack is the payback rule (policy preemption: Payback, the default):
// a task may preempt only once the GPU time it has spent waiting is at least
// what its victims would lose now, each weighted by how often it was
// already preempted (victimCost). It is the rent-or-buy rule of online
// algorithms: waiting costs the task its GPUs for every second; preempting
// costs the victims' lost work once; one buys when the rent paid reaches
// the price. A preemption made after room would have freed on its own is
// one the wait avoided.
//
// A victim's loss grows while t waits, until it checkpoints: so preemptions
// come soon after victims checkpoint, when they are cheap, or not at all
// while room frees on its own (a within-quota task that waits past the
// starvation bound holds nodes meanwhile, rule 8). Fixing the price when
// the wait began, and waiving the payback for a within-quota task past the
// starvation bound, were both tried: on the synthetic traces each lost more
// work and neither lowered the guarantee violation.
//
// It returns whether t's wait has paid, and if not when to look again.
func (s *Scheduler) paidBack(t *task, victims []victim, guaranteed bool) (time.Time, bool) {
	if s.policy.Preemption == model.PreemptImmediate {
		return s.now, true
	}
	cost := 0.0
	for _, v := range victims {
		c := v.cost
		if guaranteed {
			// Its quota is its due: the price is fixed when its wait began
			// (work a victim does meanwhile is rent paid, not a dearer
			// price), so it waits at most that price ÷ its GPUs.
			at := t.pendingSince
			if at.Before(v.t.startedAt) {
				at = v.t.startedAt
			}
			c = math.Min(c, victimCost(v.t, s.lostWork(v.t, at)))
		}
		cost += c
	}
	rate := float64(t.total.GPUs)
	if rate <= 0 || cost <= 0 {
		return s.now, true
	}
	waited := s.now.Sub(t.pendingSince).Seconds()
	if waited*rate >= cost {
		return s.now, true
	}
	need := math.Min(cost/rate, 365*24*3600)
	return t.pendingSince.Add(time.Duration(math.Ceil(need)) * time.Second), false
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
