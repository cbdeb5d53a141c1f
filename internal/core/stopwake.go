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
// usage of the type and the task that gave it (the last of the tail with
// the earliest due). While the usage is the same, the same tasks fit the
// quota; the tail only loses tasks; so while that task is still in the
// tail, the minimum is the same. A team none of whose tail fits keeps
// none while its usage is the same.

// dueMemo is tailDue's last answer for one team and type.
type dueMemo struct {
	cycle uint64
	usage resource.Vector
	due   time.Time
	t     *task // the last tail task with that due; nil when due is never
	at    int   // its position in the team's byType list
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
	m := &st.dues[i][tm.idx]
	if m.cycle == s.cycle && (m.usage == tm.usage[i] || s.breakDueMemo) &&
		(m.t == nil || (m.at >= from && m.t.state == pending && m.t.touchedIn != s.cycle)) {
		return m.due, true
	}
	*m = dueMemo{cycle: s.cycle, usage: tm.usage[i], due: never}
	bound := secs(*s.policy.StarvationBoundSeconds)
	q := tm.byType[i]
	for k := from; k < len(q); k++ {
		t := q[k]
		if t.state != pending || t.touchedIn == s.cycle || !tm.usage[i].Add(t.total).LessEq(tm.quota[i]) {
			continue
		}
		d := t.pendingSince.Add(bound)
		if !s.now.Before(d) {
			continue // past its due: it queues for the hold, no wake-up (stophold.go)
		}
		if t.sel != "" {
			m.cycle = 0
			return never, false
		}
		if !d.After(m.due) {
			m.due, m.t, m.at = d, t, k
		}
	}
	return m.due, true
}
