package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// never is the wake time when no time-based rule is pending.
var never = time.Unix(1<<62, 0)

// Schedule runs one scheduling cycle at time now and applies its decision to
// the Scheduler's state: admitted tasks count as running, victims are back in
// their queues. The caller persists the decision, then stops victims before it
// starts the admitted pods that wait for them.
//
// When no input arrived since the last cycle and no time-based rule is due,
// the cycle costs O(1): it returns no changes and the previous Waiting slice.
func (s *Scheduler) Schedule(now time.Time) model.Decision {
	if !s.dirty && now.Before(s.nextWake) && len(s.evictions) == 0 {
		d := model.Decision{Time: now}
		if !s.lazyWaiting {
			d.Waiting = s.lastWaiting
		}
		return d
	}
	s.now = now
	s.cycle++
	s.startMarks(now)
	s.clearUnpaid()
	s.cc.startCycle(len(s.types))
	d := model.Decision{Time: now, Preemptions: s.evictions}
	s.evictions = nil

	// 1. Teams pushed above quota plus borrow limit by a change give back the excess.
	if s.limitsDirty {
		s.enforceLimits(&d)
		s.limitsDirty = false
	}
	// Types that only gained tasks since a settled evaluation try just
	// those, alone, and join the full walk if one would change anything.
	s.probeAdded()
	s.resetMemoLog()
	s.startStops()
	// 2. Every team's queue in order; one head per team and instance type in
	// a heap, for the types this cycle evaluates (dirty.go).
	h := s.cc.heads[:0]
	s.stops.heads = &h
	defer func() { s.stops.heads = nil }()
	work := s.workTypes()
	for _, tm := range s.teams {
		sortQueue(tm)
		for _, i := range work {
			tm.cursors[i] = tm.liveStart(i)
			s.pushNext(&h, tm, i)
		}
	}
	s.renderShareStops()
	// 3. Take the globally first head, try it, push that team's next.
	// A type whose walk may stop (stop.go) keeps the rest for later.
	for len(h) > 0 {
		e := h.pop()
		s.refusePopped(e) // refusejump.go
		s.stops.live[e.i]--
		if s.stops.stopped[e.i] {
			s.deferTail(e)
			continue
		}
		if s.settleRest(&h, e, &d) {
			continue // the rest of e's type tried in bulk (settle.go)
		}
		s.tried++
		s.curType = e.i
		before, pre := len(d.Admissions)+len(d.Preemptions)+int(s.holdChanges), len(d.Preemptions)
		s.tryTask(e.t, &d)
		if len(d.Preemptions) != pre {
			s.refuseAfter(e) // refusejump.go
		}
		s.noteTried(e.t)
		if blocksQueue(e.t) {
			s.blockBehind(e.tm, e.i, e.t) // strictfifo.go
		}
		changed := len(d.Admissions)+len(d.Preemptions)+int(s.holdChanges) != before
		s.pushNextPassing(&h, e, changed) // passrepeat.go
		s.afterTry(e.i, changed)
	}
	s.refuseEnd()
	// 4. Report every pending task's place and reason.
	s.cc.heads = h
	s.cc.noRoom = nil // the memo holds within this cycle only
	s.endWaiting(&d)
	// A cycle that changed nothing is a fixed point: until an input arrives or
	// nextWake passes, another would decide the same. A type it changed is
	// evaluated again next cycle.
	s.endMarks(&d)
	return d
}

// tryTask admits t if its quota and the nodes allow, preempting if a rule
// lets it; otherwise it records why t waits.
func (s *Scheduler) tryTask(t *task, d *model.Decision) {
	tm, it := t.team, t.typ
	if s.now.Before(t.notBefore) {
		s.releaseHold(t)
		s.wakeAt(t.notBefore)
		s.setWait(t, model.WaitReason{Code: model.BackingOff, InstanceType: it.spec.Name,
			// The backoff's length, not the time left: a reason does not
			// change while nothing but the clock moves (blocked.go).
			Need: int64(t.notBefore.Sub(t.pendingSince).Seconds() + 0.999), Used: int64(t.retries)})
		return
	}
	if it.index.atLeast(0) == 0 {
		s.releaseHold(t)
		s.setWait(t, model.WaitReason{Code: model.NoNodes, InstanceType: it.spec.Name})
		return
	}
	if t.sel != "" {
		if m := s.matchingNodes(t); m < t.spec.Nodes {
			s.releaseHold(t)
			s.setWait(t, noMatchingNodes(t, m))
			return
		}
	}
	v := s.checkQuota(tm, it.idx, t.total)
	if v.ok {
		if nodes, _ := s.place(t, placeMode{}); nodes != nil {
			if s.probing {
				s.probeHit = true
				return
			}
			if s.rendering {
				s.stops.renderHits++ // stop.go: a deferred try never admits
				return
			}
			s.admit(t, nodes, d)
			return
		}
	}
	if s.preemptFor(t, v, d) || s.probeHit {
		return
	}
	// Victims found, but its wait has not paid their price (rule 10), or
	// found only among tasks priorityVictim spares: that, not quota or
	// room, is what it waits for, unless a hold acts sooner.
	payback := s.cc.payback
	if payback == nil {
		payback = s.protectedWait(t, v)
	}
	if !v.ok {
		s.releaseHold(t)
		switch at := s.delayAt(); {
		case payback != nil:
			t.wait = payback
		case at != 0:
			w := *v.wait
			w.At = at
			s.setWait(t, w)
		default:
			t.wait = v.wait
		}
		return
	}
	if v.inQuota {
		due := t.pendingSince.Add(secs(*s.policy.StarvationBoundSeconds))
		if s.now.Before(due) {
			s.wakeAt(due)
		} else if s.probing {
			s.probeHit = true // it would take or wait for a hold
			return
		} else if s.rendering && it.holder == nil {
			s.stops.renderHits++ // stop.go: a deferred try never takes a hold (stophold.go)
			return
		} else if s.reserve(t) {
			s.setWait(t, model.WaitReason{Code: model.Draining, InstanceType: it.spec.Name,
				Need: int64(len(t.heldNodes())), Used: int64(s.busyHeld(t))})
			return
		} else if h := it.holder; h != nil {
			s.setWait(t, model.WaitReason{Code: model.QueuedForHold, InstanceType: it.spec.Name, Detail: h.spec.Name})
			return
		}
	}
	if it.holder != nil {
		if alt, _ := s.place(t, placeMode{ignoreHolds: true}); alt != nil {
			for _, ni := range alt {
				if h := s.nodes[ni].heldFor; h != nil && h != t {
					s.setWait(t, model.WaitReason{Code: model.HeldForOther, InstanceType: it.spec.Name, Detail: h.spec.Name})
					return
				}
			}
		}
	}
	if payback != nil {
		t.wait = payback
		return
	}
	_, fit := s.place(t, placeMode{})
	if t.reqLevel >= 0 && fit >= t.spec.Nodes {
		w := model.WaitReason{Code: model.NoTopologyFit, InstanceType: it.spec.Name, Detail: t.spec.RequiredTopology,
			Need: int64(t.spec.Nodes), Used: int64(s.largestFit(it, t.reqLevel, keyFor(t)))}
		w.At = s.delayAt()
		s.setWait(t, w)
		return
	}
	w := model.WaitReason{Code: model.NoCapacity, InstanceType: it.spec.Name, Used: int64(fit), Need: int64(t.spec.Nodes)}
	if end := s.cc.delayEnd; !end.IsZero() {
		// Within its preemption delay: when it ends, the task may
		// preempt (a function of the task and the clock alone, and the
		// cycle wakes at it: preemptFor).
		w.At = end.Add(time.Second - 1).Unix()
	}
	s.setWait(t, w)
}

// preemptFor tries, in order, the preemptions the rules allow a task that
// cannot start as things are: reclaim and within-team priority to run within
// quota, then replacing its own team's lower-priority work, then fair share.
func (s *Scheduler) preemptFor(t *task, v quotaVerdict, d *model.Decision) bool {
	s.cc.payback = nil
	s.cc.delayEnd = time.Time{}
	s.cc.inQuota = v.inQuota
	tm, i := t.team, t.typ.idx
	// A task over its quota first tries to end within it, if its team does
	// not borrow now and may stop its own lower-priority work: it takes back
	// lent compute before its own work (a team that borrows reclaims
	// nothing). Then it tries to borrow, with its own lower-priority victims
	// and fair-share victims in one search, as Kueue does.
	borrowing := !s.settled(tm, i).LessEq(tm.quota[i])
	guaranteed := v.inQuota || (!borrowing && s.rankPreemption(tm))
	borrow := !v.inQuota && tm.spec.Lending.Borrows()
	if delay := s.policy.PreemptionDelaySeconds; delay > 0 {
		if ready := t.pendingSince.Add(time.Duration(delay * float64(time.Second))); s.now.Before(ready) {
			s.wakeAt(ready)
			s.cc.delayEnd, s.cc.delaySearches = ready, guaranteed || borrow
			return false
		}
	}
	switch {
	case guaranteed && s.tryPreempt(t, modeGuaranteed, d):
		return true
	case borrow && s.tryPreempt(t, modeBorrow, d):
		return true
	}
	return false
}

// delayAt is when the preemption delay of the task being tried ends
// (Unix seconds, rounded up), for its quota or topology refusal, when it
// is within the delay and a victim search follows the delay's end
// (preemptFor); else 0. It is a function of the task and the policy, so
// the reason stands still while only the clock moves, and the cycle
// wakes at it.
func (s *Scheduler) delayAt() int64 {
	if s.cc.delayEnd.IsZero() || !s.cc.delaySearches {
		return 0
	}
	return s.cc.delayEnd.Add(time.Second - 1).Unix()
}

// rankPreemption reports whether tm's higher-priority tasks may preempt its
// lower-priority ones (and, with LowerOrNewerEqualPriority, its newer ones
// of equal priority: ownVictim).
func (s *Scheduler) rankPreemption(tm *team) bool {
	return s.policy.TaskPrioritization == model.TaskRanking && tm.spec.PreemptTeamTasks.Preempts()
}

// admit starts t on nodes and records the admission.
func (s *Scheduler) admit(t *task, nodes []int32, d *model.Decision) {
	i := t.typ.idx
	after := t.team.usage[i].Add(t.total)
	borrowed := !after.LessEq(t.team.quota[i])
	borrowedGPUs := min(max(after.GPUs-t.team.quota[i].GPUs, 0), t.total.GPUs)
	best := s.cc.bestSpread
	s.releaseHold(t)
	s.noteBackfill(t)
	s.assign(t, nodes)
	t.startedAt = s.now
	t.touchedIn = s.cycle
	s.noteFresh(t)
	t.wait = nil
	t.team.dropped(t)
	d.Admissions = append(d.Admissions, model.Admission{Task: t.spec.Name, Team: t.spec.Team,
		InstanceType: t.typ.spec.Name, Pods: s.placement(t), Borrowed: borrowed, BorrowedGPUs: borrowedGPUs,
		Spread: s.spreadOf(t.typ, nodes), BestSpread: best})
}
