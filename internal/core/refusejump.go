package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// The refusal jump: a walk goes on past the teams its quota refuses.
//
// A walk that admits or preempts deep in the queue tried, before the task
// that changed something, every head of the other teams in the heap's
// order: at 10,000 jobs of the deep-backlog replay, 1.5 million of 6.5
// million tries were other teams' tasks, refused by their quota
// (NoIdleCompute: the group's pool has no idle compute), tried before the
// walk's last admission or preemption. The early stop (stop.go) cannot
// defer them, as the team that changes something holds its check back.
//
// When a check of type i fails, a team X whose head of type i is in the
// heap is deferred (refusable) when, at the state S of the check:
//   - its smallest request is refused by its quota (checkQuota's refusal is
//     upward-closed in the request, so every task of its list is refused),
//   - the failed-search memo skips every search of its list
//     (searchesSkipped; the memo's entries of X are written only by X's own
//     tries, so this holds for the rest of the cycle),
//   - no task of its list backs off, waits for its preemption delay or has
//     a node selector, the type has schedulable nodes, X holds no nodes,
//     and protectedWait says nothing (preemption Payback, or X does not
//     preempt its own lower-priority tasks),
//   - the cycle walks type i alone (so X's weighted share, its heads' key,
//     moves only with X's usage of type i);
//   - X is not StrictFIFO (its head's try blocks the rest: strictfifo.go).
// Then a try of X's task t, at any state where X's usage of type i is still
// u0 (its usage at S) and its smallest request still refused, goes through
// tryTask's quota refusal and two skipped searches to record v.wait and
// nothing else: no admission, preemption, hold, wake-up or unpaid mark.
// v.wait reads X's usage, quota and borrow limit, and the pool only for
// its code: with the smallest request refused by the pool, every larger
// one is (upward-closed) unless X's own borrow limit refuses it first. So
// its reason is quotaAt(X, i, t, u0, pool refusing), the same at every such
// state. And X's heads' keys (borrowing; weighted share at u0) are fixed.
//
// Which states keep the condition. An admission only raises a team's
// usage: a group's overflow (borrowed less lent) and the total overflow
// only grow, and X's own overflow with its request grows at least as much
// (max(0, ·) is convex), so a refused pool stays refused, component by
// component (allowed is the unallocated capacity or the total overflow,
// whichever is larger, and X's total grows with either). A hold changes no
// usage. Only a preemption lowers usage (its victims', perhaps X's). So
// after every preemption of type i the walk checks each deferred team
// again (refuseAfter): X's usage still u0 and its smallest request still
// refused keep it deferred. Otherwise X's tasks whose key comes before the
// preemptor's head (the full walk tried them before it, at states where the
// condition held) get their reason by quotaAt at u0, and X's next task
// goes back into the heap with the key it had at u0 (the full walk pushed
// it then): the walk goes on with X as the full walk would.
//
// At the walk's end the teams still deferred join the stop's deferred
// tries (renderType makes them at the end state, where the condition
// holds); the walk's later checks skip them (their tries change nothing,
// ask for nothing).
//
// breakRefuse (test only) keeps every deferred team deferred after a
// preemption, and breakRefuseLog compares a team put back with the
// preemptor's head alone, not every head popped since its deferral: the
// injected bugs the differential test must catch.

type refuseState struct {
	cycle   []uint64    // per type: the cycle of out
	out     [][]refused // per type: the teams deferred in this cycle's walk
	jumps   uint64      // checks that deferred a team (a measure)
	teams   uint64      // teams deferred (a measure)
	flushes uint64      // teams put back after a preemption (a measure)
	log     []head      // the heads the walk popped since its first deferral (putBack)
}

// refused is a deferred team's head and its usage of the type at the jump.
type refused struct {
	h    head
	u0   resource.Vector
	from int // the length of the log at the deferral
}

func (s *Scheduler) refusedList(i int) []refused {
	r := &s.refuse
	if i >= len(r.cycle) || r.cycle[i] != s.cycle {
		return nil
	}
	return r.out[i]
}

// refusedOut reports whether the walk of type i deferred tm (see above).
func (s *Scheduler) refusedOut(i int, tm *team) bool {
	for _, x := range s.refusedList(i) {
		if x.h.tm == tm {
			return true
		}
	}
	return false
}

// refuseJump defers, after a failed check of type i, the teams of the heap
// that are refusable (see above).
func (s *Scheduler) refuseJump(i int) {
	st, r := &s.stops, &s.refuse
	if s.fullRescan || st.heads == nil || st.popped.t != nil || len(s.workList) != 1 || s.workList[0] != i ||
		s.types[i].index.atLeast(0) == 0 {
		return
	}
	if len(r.cycle) != len(s.types) {
		r.cycle, r.out = make([]uint64, len(s.types)), make([][]refused, len(s.types))
	}
	if r.cycle[i] != s.cycle {
		r.cycle[i], r.out[i] = s.cycle, r.out[i][:0]
		clear(r.log)
		r.log = r.log[:0]
	}
	h := *st.heads
	n := len(r.out[i])
	q := h[:0]
	for _, x := range h {
		if x.i == i && s.refusable(x.tm, i) {
			r.out[i] = append(r.out[i], refused{h: x, u0: x.tm.usage[i], from: len(r.log)})
			st.live[i]--
		} else {
			q = append(q, x)
		}
	}
	if len(r.out[i]) == n {
		return
	}
	r.jumps++
	r.teams += uint64(len(r.out[i]) - n)
	for k := len(q); k < len(h); k++ {
		h[k] = head{}
	}
	q.init()
	*st.heads = q
}

// refusable reports whether every try of tm's list of type i is, at the
// current state, a quota refusal with both searches skipped (see above).
func (s *Scheduler) refusable(tm *team, i int) bool {
	if tm.strict() {
		return false // its head's try may block its tail (strictfifo.go)
	}
	a, p, now := tm.agg(i), &s.policy, s.now
	if a.folded == 0 || a.shape.anySel || now.Before(a.maxNB) {
		return false
	}
	if h := s.types[i].holder; h != nil && h.team == tm {
		return false
	}
	if p.Preemption == model.PreemptImmediate && s.rankPreemption(tm) {
		return false // protectedWait may search
	}
	if delay := p.PreemptionDelaySeconds; delay > 0 &&
		now.Before(tm.tightPS(i).maxPS.Add(time.Duration(delay*float64(time.Second)))) {
		return false
	}
	return !s.checkQuota(tm, i, a.minTotal).ok && s.searchesSkipped(tm, i, a)
}

// refuseAfter checks the teams deferred in type e.i again after e's try
// preempted (see above), putting back those the preemption may have let in.
func (s *Scheduler) refuseAfter(e head) {
	i := e.i
	list := s.refusedList(i)
	if len(list) == 0 {
		return
	}
	keep := list[:0]
	for _, x := range list {
		tm := x.h.tm
		if s.breakRefuse || (tm.usage[i] == x.u0 && !s.checkQuota(tm, i, tm.agg(i).minTotal).ok) {
			keep = append(keep, x)
			continue
		}
		s.refuse.flushes++
		s.putBack(x, e)
	}
	clear(list[len(keep):])
	s.refuse.out[i] = keep
}

// putBack gives tm's tasks that the full walk tried before e (or before
// any head popped since the deferral: the heap's order is not monotone, a
// head pushed later may come before one popped earlier) their reason at
// the deferral's usage, and pushes tm's next task with the key it had then.
// In the full walk a deferred head is popped before a popped head e' when
// its key is less than that of e', and then its team's next task is pushed; the
// walk's own pops are the same (the deferred tries change nothing).
func (s *Scheduler) putBack(x refused, e head) {
	tm, i := x.h.tm, x.h.i
	if s.jumpedOut(i, tm) {
		s.jump.out[i][tm.idx] = false // the hold jump found it out of the heap (holdjump.go)
	}
	q, log := tm.byType[i], s.refuse.log
	k := x.h // its key as pushed; the next ones' at u0, as pushNext would push them
	from := x.from
	if s.breakRefuseLog {
		from = len(log) - 1 // e alone
	}
	// One reason per request: quotaAt is a function of the request here.
	var lastR resource.Vector
	var last *model.WaitReason
	for j := from; j < len(log); {
		if !(heads{k, log[j]}).less(0, 1) {
			j++
			continue
		}
		t := k.t
		if last == nil || t.total != lastR {
			lastR, last = t.total, nil
			if v, w := s.quotaValue(tm, i, t.total, x.u0, false); !v.ok {
				last = s.record(w)
			}
		}
		t.wait = last
		t = nil
		for tm.cursors[i] < len(q) {
			c := q[tm.cursors[i]]
			tm.cursors[i]++
			if c.state == pending && c.touchedIn != s.cycle {
				t = c
				break
			}
		}
		if t == nil {
			return
		}
		k = head{tm: tm, i: i, t: t, borrows: !x.u0.Add(t.total).LessEq(tm.quota[i])}
		if k.borrows && s.policy.IdleComputeAllocation == model.FairShare {
			k.share = s.share(tm, i, t.total.Add(x.u0).Sub(tm.usage[i]))
		}
	}
	s.stops.heads.push(k)
	s.stops.live[i]++
}

// refusePopped logs a head the walk popped while teams of its type are
// deferred (putBack reads the log).
func (s *Scheduler) refusePopped(e head) {
	if len(s.refusedList(e.i)) > 0 {
		s.refuse.log = append(s.refuse.log, e)
	}
}

// refuseEnd moves the teams still deferred at the walk's end into the
// stop's deferred tries, rendered at the end state.
func (s *Scheduler) refuseEnd() {
	r := &s.refuse
	for i := range r.cycle {
		list := s.refusedList(i)
		if len(list) == 0 {
			continue
		}
		for _, x := range list {
			s.deferTail(x.h)
		}
		clear(list)
		r.out[i] = list[:0]
		if !s.stops.stopped[i] {
			// What renderType starts from, as at a stop: the cycle (its
			// victims are skipped) and the memo.
			s.snapJump(i)
		}
	}
}
