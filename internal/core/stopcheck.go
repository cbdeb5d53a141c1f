package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// The early stop's check (stop.go has the argument it implements).

// stoppable reports whether no task left in type i's walk can change
// anything (see the argument in stop.go). The team that held the last check of the type back is asked first: while
// the walk still admits, it usually still does, and the check then costs
// one team instead of every team before it. The answer is the same in any
// order (every team must pass), and a check that passes has asked every
// team, so the tail's wake-up covers them all.
func (s *Scheduler) stoppable(i int) bool {
	if s.fullRescan || s.probing {
		return false
	}
	if !s.holdStands(i) {
		s.dropJump(i) // the walk goes on for the holder, and may jump (holddrop.go)
		return false
	}
	p := &s.policy
	c := stopCheck{i: i, cur: s.typeWake[i], wake: never,
		rebalance: p.IdleComputeAllocation == model.FairShare && *p.FairShareRebalance, bor: s.borrowSummary(i),
		jump: s.jumpable(i), takers: s.jump.takers[:0]}
	st := &s.stops
	first := st.blocker[i]
	if first != nil && !s.refusedOut(i, first) && s.blocks(first, &c) && !s.trialClears(first, &c) {
		return false
	}
	for _, tm := range s.teams {
		if tm != first && !s.jumpedOut(i, tm) && !s.refusedOut(i, tm) && s.blocks(tm, &c) && !s.trialClears(tm, &c) {
			st.blocker[i] = tm
			return false
		}
	}
	if len(c.takers) > 0 {
		// Only tasks that may take the hold held the check back: the
		// walk goes on without the tails that cannot see it
		// (holdjump.go), unless a team passed by tries made ahead
		// (stoptrial.go), which hold only while nothing changes.
		if !c.trialed {
			s.holdJump(&c)
		}
		return false
	}
	st.wake, st.trialed = c.wake, c.trialed
	return true
}

// stopCheck is what one check reads for every team, and the tail's
// starvation wake-up it collects (stopwake.go).
type stopCheck struct {
	i         int
	cur       time.Time // the type's wake-up the walk has collected
	rebalance bool
	bor       *borSummary
	wake      time.Time
	// inSearch: the last blocks call refused in its victim-search bounds
	// (from the failed-search memo on); trialed: a team passed by tries
	// made ahead (stoptrial.go).
	inSearch, trialed bool
	// jump: a team whose tail may take the type's hold does not block,
	// it is counted in takers (holdjump.go).
	jump   bool
	takers []*team
	// dropping: the type's holder will drop its hold in this walk
	// (holddrop.go): a team whose tail may take a hold after it is a taker.
	dropping bool
}

// blocks reports whether a task of tm's tail in type c.i may change
// something (the bounds of the argument in stop.go); if not, it folds the
// tail's starvation wake-up into c.wake.
func (s *Scheduler) blocks(tm *team, c *stopCheck) bool {
	i, cur, bor := c.i, c.cur, c.bor
	it, p, now := s.types[i], &s.policy, s.now
	c.inSearch = false
	if len(tm.byType) <= i || len(tm.byType[i]) == 0 {
		return false
	}
	if strict, b := s.strictBlocks(tm, i); strict {
		return b // its next try may block its tail; none left once tried (strictfifo.go)
	}
	a := tm.agg(i)
	if now.Before(a.maxNB) {
		return true // a task may be backing off: its own wake-up
	}
	v := s.checkQuota(tm, i, a.minTotal)
	room := a.minKey < len(it.index.counts) && it.index.atLeast(a.minKey) >= a.minNodes
	if v.ok && room && !s.breakStop && s.mayAdmit(tm, i) &&
		(it.holder == nil || c.dropping || !s.heldRefuses(tm, i)) {
		return true // a task may be admitted (with the holds in place: stopheld.go)
	}
	inQuota := v.ok && v.inQuota
	if inQuota {
		due := a.minPS.Add(secs(*p.StarvationBoundSeconds))
		if !now.Before(due) && (s.holdDue(i) || c.dropping) {
			if !c.jump {
				return true // a tail task may take a hold (stophold.go)
			}
			c.takers = append(c.takers, tm) // the walk goes on for its tail (holdjump.go)
		}
		if due.Before(cur) {
			// Its tail may ask for an earlier wake-up: the stop asks
			// for it (stopwake.go).
			d, ok := s.tailDue(tm, i)
			if !ok {
				return true
			}
			if d.Before(c.wake) {
				c.wake = d
			}
		}
	}
	if delay := p.PreemptionDelaySeconds; delay > 0 {
		// A tail task not yet ready asks for a wake-up at its ready
		// time, and searches nothing.
		d := time.Duration(delay * float64(time.Second))
		a = tm.tightPS(i)
		lo, hi := a.minPS.Add(d), a.maxPS.Add(d)
		if now.Before(hi) && lo.Before(cur) {
			return true
		}
		if now.Before(lo) {
			return false // no tail task of the team reaches a search
		}
	}
	c.inSearch = true // what follows bounds the tail's victim searches (stoptrial.go)
	if s.searchesSkipped(tm, i, a) {
		return false // the memo skips every search of its tail (stopskip.go)
	}
	if s.rankPreemption(tm) && s.rankBlocks(tm, c) {
		return true // own lower-priority victims (stoprank.go)
	}
	if tm.spec.BorrowWithinGroup.Preempts() && tm.spec.Lending.Borrows() && bor.othersThan(tm) {
		return true // borrowing searches may take other teams' tasks for priority (borrowwithin.go); not bounded here
	}
	search := inQuota && bor.othersThan(tm) && tm.spec.ReclaimWithinGroup != model.ReclaimNever
	if search && !s.breakStopSearch && bor.cheapOthersThan(tm) &&
		(a.minKey >= len(bor.reach) || bor.reach[a.minKey] >= a.minNodes) {
		return true // a within-quota task reclaims cheap victims at once (cheapReclaim), unpaid
	}
	dear := false
	if tm.spec.Lending.Borrows() && c.rebalance {
		if bor.wake.Before(cur) && s.fairWakeBlocks(tm, c) {
			return true // a minimum runtime's end it cannot ask for (stopfair.go)
		}
		if bor.ready && bor.othersThan(tm) {
			if s.fairDearOnly(tm, bor) {
				dear = true // its borrowing searches see no cheap other-team candidate (stopfair.go)
			} else {
				if len(s.types) > 1 {
					return true // fair-share searches compare shares other types move
				}
				search = true
			}
		}
	}
	if !search {
		return dear && (i >= len(s.unpaid) || !s.unpaid[i])
	}
	if p.Preemption != model.PreemptPayback || *p.RestartCostSeconds <= 0 || bor.zeroGPU || a.minTotal.GPUs < 1 {
		return true
	}
	if i >= len(s.unpaid) || !s.unpaid[i] || s.nextTick().Before(cur) {
		return true
	}
	// By the next tick, as paidBack reads an in-quota task's rent (rentByNextLook).
	rent := max(s.nextTick().Sub(a.minPS).Seconds(), 0) * float64(a.maxGPUs)
	if rent >= float64(*p.RestartCostSeconds) {
		return true
	}
	return false
}

// mayAdmit reports whether a task of tm's tail in type i passes its quota
// check and place's count check: the bounds of its aggregate, task by task.
//
// The scan keeps its place (admitScan) for the rest of the cycle until the
// walk preempts (freed): a task it found that may not be admitted stays so.
// The tail only shrinks (the cursor only moves on, and the only tasks that
// come back into a list in a cycle are victims, which a preemption puts
// there); a hold changes no usage and no free capacity; an admission only
// raises usages and takes free capacity, so a quota check that refused a
// request still refuses it (checkQuota's refusal stays under admissions:
// refusejump.go has the argument) and fewer nodes reach each bucket
// (nodeIndex.atLeast only falls). Only a preemption frees capacity and
// lowers usage. So the next call starts where the last one stopped: at the
// task it found admissible (checked again), or at the list's end (a no).
// breakNoAdmitGen (test only) keeps the place across a preemption, the
// injected bug TestDifferentialCatchesStaleNoAdmit catches.
func (s *Scheduler) mayAdmit(tm *team, i int) bool {
	ix := &s.types[i].index
	st := &s.stops
	if len(st.admitScans[i]) != len(s.teams) {
		st.admitScans[i] = make([]admitScan, len(s.teams))
	}
	sc := &st.admitScans[i][tm.idx]
	from := max(tm.cursors[i]-1, 0)
	if sc.freed != st.freed+1 {
		*sc = admitScan{freed: st.freed + 1, pos: from}
	}
	q := tm.byType[i]
	for sc.pos = max(sc.pos, from); sc.pos < len(q); sc.pos++ {
		t := q[sc.pos]
		if t.state != pending {
			continue
		}
		if k := keyFor(t); k < len(ix.counts) && ix.atLeast(k) >= t.spec.Nodes && s.checkQuota(tm, i, t.total).ok {
			return true
		}
	}
	return false
}

// admitScan is how far mayAdmit read a team's list of one type: entries
// before pos hold no task that may be admitted, since the cycle's last
// preemption (freed+1 when read).
type admitScan struct {
	freed uint64
	holds uint64 // holdChanges at the scan's start (heldRefuses only: stopheld.go)
	pos   int
}
