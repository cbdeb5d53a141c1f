package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// heldBackBy is the higher-priority task of t's team whose wait makes
// reclaimOnly hold t's preemptions back (the first in the team's order), or
// nil.
func (s *Scheduler) heldBackBy(t *task) *task {
	if s.policy.Preemption != model.PreemptImmediate || t.typ.idx >= len(t.team.byType) {
		return nil
	}
	for _, o := range t.team.byType[t.typ.idx] {
		if o.rank <= t.rank {
			return nil
		}
		if o.state == pending && s.mayStart(o) {
			return o
		}
	}
	return nil
}

// behindWait is t's wait reason when its preemption searches failed
// (preemptFor) because reclaimOnly held them back (preemption Immediate,
// rule 10): a search that may also take its own team's lower-priority tasks
// (those priorityVictim does not spare) would let it start. The reason
// names the waiting higher-priority task (Detail; of t's team). It is empty
// otherwise.
//
// Like protectedWait it reads only the state and changes nothing: the
// search's candidates are of t's team, so none is refused (no unpaid mark,
// no wake-up), and its victims are given back. So every kind of try records
// the same reason at the same state; decisions are unchanged. A search that
// would need other teams' tasks too is not tried: the reason is then the
// usual one.
func (s *Scheduler) behindWait(t *task, v quotaVerdict) model.WaitReason {
	tm, i := t.team, t.typ.idx
	if !s.rankPreemption(tm) || i >= len(tm.run) {
		return model.WaitReason{}
	}
	h := s.heldBackBy(t)
	if h == nil {
		return model.WaitReason{}
	}
	if delay := s.policy.PreemptionDelaySeconds; delay > 0 &&
		s.now.Before(t.pendingSince.Add(time.Duration(delay*float64(time.Second)))) {
		return model.WaitReason{} // no search yet (preemptFor)
	}
	for _, mode := range s.rankModes(t, v) {
		cands := s.cc.cands[:0]
		for _, o := range tm.run[i] {
			if o.rank < t.rank && o.touchedIn != s.cycle {
				if _, spared := s.spared(o); !spared {
					cands = append(cands, victim{t: o, cat: 0})
				}
			}
		}
		victims, _ := s.searchVictims(t, mode, cands)
		s.cc.cands = cands[:0]
		if victims == nil {
			continue
		}
		for k := len(victims) - 1; k >= 0; k-- {
			s.reassign(victims[k].t)
		}
		return model.WaitReason{Code: model.BehindHigherPriority, InstanceType: t.typ.spec.Name, Detail: h.spec.Name}
	}
	return model.WaitReason{}
}
