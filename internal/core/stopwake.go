package core

import (
	"time"

	"github.com/taskgov/taskgov/internal/resource"
)

// The tail's starvation wake-ups: a stop that asks for them itself.
//
// A task within its team's quota that cannot start asks for a wake-up at
// its starvation due (pendingSince plus the starvation bound: tryTask), so
// that the hold is taken in time. Once a completion leaves a team below
// its quota, each of its tail tasks that fits the rest of the quota asks
// for one; the early stop (stop.go) wanted every such due at or after the
// wake-up the walk had collected, and a walk collects it only by trying the
// task. So a type whose walk had used up the freed room still walked its
// whole queue (in bulk, settle.go) to reach the one team whose tasks ask.
//
// Instead, the check computes the wake-up those tries ask for and the stop
// sets it. For a team whose smallest request fits its quota and whose
// earliest due is before the wake-up collected so far, tailDue makes the
// check each tail try of the team makes on the way to that wake-up, at the
// state S of the stop. With the rest of the check holding (no tail task
// backs off, admits, searches with effect, or takes a hold; no due has
// passed: stop.go), a tail task t's try at S reaches the wake-up exactly
// when its type has nodes, it has no node selector (one with a selector
// makes the check refuse), and t fits its team's quota at S (usage + t's
// request within the quota: the verdict's inQuota); it then asks for
// pendingSince + bound. Every other wake-up a tail try can ask for is at or
// after the collected one (stop.go), so the full walk ends the cycle with
// the type's wake-up at the earlier of the collected one and tailDue's
// minimum over the teams: what stopType sets. renderType's check (the
// deferred tries leave the wake-up as it is) and the differential test
// hold it to that.
//
// The tail of a team is its byType list from its head on, less tasks no
// longer pending or touched this cycle (pushNext's rule): only a team with
// a head in the walk's heap (or the head settleRest popped) has one; a team
// whose list the walk used up has none, although its cursor then also
// stands at the end.
//
// The scan costs the team's tail once: its answer is kept with the team's
// usage and quota of the type, the bound, and the task that gave it (the
// last of the tail with the earliest due). While those are the same, the
// same tasks fit the quota; the tail only loses tasks; so while that task
// is still in the tail, the minimum is the same. A usage that only rose
// (an admission of the team) leaves fewer tasks fitting (checkQuota's
// fit is upward-closed): while the kept task still fits, it is still the
// minimum, and the memo goes on at the new usage. A team none of whose
// tail fits keeps none while its usage is the same or higher.
//
// The answer outlives its cycle (a verdict kept across cycles): it covers
// the list's entries lo to hi, read at a past now. Until a rewrite moves
// positions (team.lists: splitByType, insertTail), which drops the memo,
// the list only gains entries at its end (read on the next use) and its
// tasks leave the queue (their entries stay, no longer pending): the
// minimum over the tasks that stay is the kept one while its task stays.
// An entry read as gone may be pending again in its place (repend: a
// victim or a resumed task): dueRevived reads it into the memo then, if
// the memo covers it. Time only removes dues: one the scan left out as at
// or before its now is still past, and no due read lies between that now
// and the kept one, so the kept due is still the minimum while it is
// ahead of now (else the memo is dropped). A new cycle starts the tail
// higher in the list (its cursor from the start): the entries from the
// tail's new start to lo are read in, an earlier due taking the minimum
// and the kept task winning ties (it comes later). A scan that left out a
// task touched in its cycle (a victim, queued again) holds in that cycle
// only. Those conditions are the memo's key (dueMemo.holds). Injected bugs
// (test only), each caught by the differential test: breakDueFall keeps
// the memo when the usage fell, breakDueLists leaves the list's rewrites
// out of the key, breakDueRevived leaves an entry pending again unread,
// breakDueFrom leaves the entries before the kept range unread.

// dueMemo is tailDue's last answer for one team and type: the earliest due
// among the pending entries lo to hi of the team's byType list.
type dueMemo struct {
	set     bool
	tm      *team
	cycle   uint64 // the cycle it was last read or extended in
	usage   resource.Vector
	quota   resource.Vector
	bound   time.Duration
	lists   uint64 // tm.lists at the scan
	touched bool   // the scan left out a task touched in cycle: it holds in that cycle only
	lo, hi  int
	due     time.Time
	t       *task // the last entry with that due; nil when due is never
	at      int   // its position in the team's byType list
}

// hasHead reports whether tm has a head of type i in the walk: in its heap,
// or the one settleRest popped and has not tried yet.
func (s *Scheduler) hasHead(tm *team, i int) bool {
	st := &s.stops
	if st.popped.tm == tm && st.popped.i == i {
		return true
	}
	if st.heads == nil {
		return false
	}
	for _, e := range *st.heads {
		if e.tm == tm && e.i == i {
			return true
		}
	}
	return false
}

// tailDue returns the earliest starvation due that tm's tail tries of type
// i ask for at the current state, never if none does; ok is false when a
// tail task that fits the quota has a node selector (its try reaches the
// wake-up only with enough matching nodes): the check then answers no.
func (s *Scheduler) tailDue(tm *team, i int) (due time.Time, ok bool) {
	st := &s.stops
	if s.types[i].index.atLeast(0) == 0 || !s.hasHead(tm, i) {
		return never, true // no tail try gets past NoNodes; or no tail
	}
	if len(st.dues[i]) != len(s.teams) {
		st.dues[i] = make([]dueMemo, len(s.teams))
	}
	from := max(tm.cursors[i]-1, 0)
	q := tm.byType[i]
	m := &st.dues[i][tm.idx]
	bound := secs(*s.policy.StarvationBoundSeconds)
	if !m.holds(s, tm, i, bound, from, len(q)) {
		*m = dueMemo{set: true, tm: tm, usage: tm.usage[i], quota: tm.quota[i], bound: bound, lists: tm.lists,
			lo: len(q), hi: len(q), due: never}
	}
	m.usage = tm.usage[i] // the same, or higher with the kept task still fitting (see above)
	if m.cycle != s.cycle && m.lo < m.hi {
		st.dueKept++
		if s.breakDueFrom {
			from = max(from, m.lo)
		}
	}
	m.cycle = s.cycle
	if !m.fold(s, q, m.hi, len(q), false) || !m.fold(s, q, from, m.lo, true) {
		*m = dueMemo{}
		return never, false
	}
	m.lo, m.hi = min(m.lo, from), len(q)
	return m.due, true
}

// holds reports whether m still answers for tm's tail of type i from from
// on, at the current state (see above).
func (m *dueMemo) holds(s *Scheduler, tm *team, i int, bound time.Duration, from, n int) bool {
	switch {
	case !m.set || m.tm != tm || m.bound != bound || n < m.hi:
		return false
	case m.quota != tm.quota[i]:
		return false
	case m.usage != tm.usage[i] && !s.breakDueMemo && !s.breakDueFall && !m.usage.LessEq(tm.usage[i]):
		return false // the usage fell: more tasks may fit
	case m.usage != tm.usage[i] && !s.breakDueMemo && m.t != nil && !tm.usage[i].Add(m.t.total).LessEq(m.quota):
		return false // the kept task no longer fits
	case m.lists != tm.lists && !s.breakDueLists, m.touched && m.cycle != s.cycle:
		return false
	case m.t == nil:
		return true
	}
	t := m.t
	return m.at >= from && t.state == pending && t.touchedIn != s.cycle && s.now.Before(m.due)
}

// dueRevived reads the entry k of tm's list of type i, pending again, into
// its tailDue memo when the memo covers it (lo to hi); it comes before or
// after the kept task by its position.
func (s *Scheduler) dueRevived(tm *team, i, k int) {
	st := &s.stops
	if i >= len(st.dues) || len(st.dues[i]) != len(s.teams) || s.breakDueRevived {
		return
	}
	m := &st.dues[i][tm.idx]
	if !m.set || m.tm != tm || k < m.lo || k >= m.hi {
		return // not kept, or read on its next use
	}
	if !m.fold(s, tm.byType[i], k, k+1, m.t != nil && k < m.at) {
		*m = dueMemo{}
	}
}

// fold reads entries lo to hi of q into m: a pending, untouched task that
// fits the team's quota (m.usage) and whose due is ahead asks for it. Read
// before the kept ones (before), a task takes the minimum only with an
// earlier due; after them, with an equal one too (the last wins). It
// reports false at a task with a node selector that asks.
func (m *dueMemo) fold(s *Scheduler, q []*task, lo, hi int, before bool) bool {
	bdue, bt, bat := never, (*task)(nil), 0
	for k := lo; k < hi; k++ {
		t := q[k]
		if t.state != pending {
			continue
		}
		if t.touchedIn == s.cycle {
			m.touched = true
			continue
		}
		if !m.usage.Add(t.total).LessEq(m.quota) {
			continue
		}
		d := t.pendingSince.Add(m.bound)
		if !s.now.Before(d) {
			continue // past its due: it queues for the hold, no wake-up (stophold.go)
		}
		if t.sel != "" {
			return false
		}
		if !d.After(bdue) {
			bdue, bt, bat = d, t, k
		}
	}
	if bt != nil && (bdue.Before(m.due) || (!before && bdue.Equal(m.due))) {
		m.due, m.t, m.at = bdue, bt, bat
	}
	return true
}
