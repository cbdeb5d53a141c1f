package core

import (
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// protectedWait is the wait reason of t when its preemption searches failed
// (preemptFor) only because priorityVictim spares lower-priority tasks of
// its team (preemption Immediate, rule 10): a search that may take them too
// would let t start. The reason names the spared tasks that search chose
// (Detail; they are of t's team, so its members may see them) and when t
// may take them (At: when t will have waited the starvation bound, where
// priorityVictim asked for a wake-up). It is empty otherwise.
//
// It reads only the state and the cost clock, not the cycle's victim-search
// memo, and changes nothing but the type's wake-up: the search's victims
// are given back; t's failed search woke the type at t's time, or the
// memo skipped it for an earlier task of the team that spared nothing, whose
// candidates include t's, so t cannot start while that one fails;
// a search that finds victims chose them by their lost work at the cost
// clock, so it wakes the type at the clock's next tick, where the choice
// may differ with nothing else changed (a tie between domains broken by
// priority at one tick is decided by lost work at the next); its
// candidates are of t's team, so no candidate is refused (no unpaid mark).
// So a skipped search, a probe, a bulk settle and a deferred try (stop.go)
// record the same reason as a full walk at the same state and clock;
// decisions are unchanged.
func (s *Scheduler) protectedWait(t *task, v quotaVerdict) *model.WaitReason {
	tm, i := t.team, t.typ.idx
	if s.policy.Preemption != model.PreemptImmediate || !s.rankPreemption(tm) || i >= len(tm.run) {
		return nil
	}
	if delay := s.policy.PreemptionDelaySeconds; delay > 0 &&
		s.now.Before(t.pendingSince.Add(time.Duration(delay*float64(time.Second)))) {
		return nil // no search yet (preemptFor)
	}
	some := false
	for _, o := range tm.run[i] {
		if ownVictim(t, o) && o.touchedIn != s.cycle {
			if _, ok := s.spared(t, o); ok {
				some = true
				break
			}
		}
	}
	if !some {
		return nil
	}
	for _, mode := range s.rankModes(t, v) {
		cands := s.cc.cands[:0]
		for _, o := range tm.run[i] {
			if ownVictim(t, o) && o.touchedIn != s.cycle {
				cands = append(cands, victim{t: o, cat: 0})
			}
		}
		victims, _ := s.searchVictims(t, mode, cands)
		s.cc.cands = cands[:0]
		if victims == nil {
			continue
		}
		// Which victims the search chose, spared or not, follows their
		// lost work at the cost clock (the victim order, the domain whose
		// victims lose the least): the reason may name others once the
		// clock ticks, with nothing else changed, so the type is tried
		// again then.
		s.wakeAt(s.nextTick())
		var names []string
		var at time.Time
		for k := len(victims) - 1; k >= 0; k-- {
			s.reassign(victims[k].t)
		}
		for _, vc := range victims {
			if until, ok := s.spared(t, vc.t); ok {
				names = append(names, vc.t.spec.Name)
				if until.After(at) {
					at = until
				}
			}
		}
		if len(names) == 0 {
			return nil // not what it waits for
		}
		return s.record(model.WaitReason{Code: model.VictimProtected, InstanceType: t.typ.spec.Name,
			Detail: strings.Join(names, ", "), Need: int64(len(names)), At: at.Unix()})
	}
	return nil
}

// rankModes lists the preemption modes preemptFor tries for t under task
// ranking, in its order: within quota (when t fits it, or its team does not
// borrow yet), then borrowing (when t needs to and its team borrows).
func (s *Scheduler) rankModes(t *task, v quotaVerdict) []preemptMode {
	tm, i := t.team, t.typ.idx
	borrowing := !s.settled(tm, i).LessEq(tm.quota[i])
	var modes []preemptMode
	if v.inQuota || !borrowing {
		modes = append(modes, modeGuaranteed)
	}
	if !v.inQuota && tm.spec.Lending.Borrows() {
		modes = append(modes, modeBorrow)
	}
	return modes
}
