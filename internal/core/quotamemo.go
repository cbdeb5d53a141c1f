package core

import "github.com/taskgov/taskgov/internal/resource"

// The quota memo: a walk asks the same quota questions again and again.
//
// A walk tries a team's queue task by task, and each try asks checkQuota
// whether the team may run the task's request more, and each head pushed
// into the cycle's heap asks the team's weighted share with the task
// admitted (share). A queue holds few distinct request sizes, and between
// two admissions or preemptions nothing either function reads moves, so a
// deep queue asks the same question thousands of times a cycle.
//
// The memo remembers, per team and instance type, the last few answers by
// request. An answer is kept with the memo's epoch, and the epoch moves on
// every change of anything the two functions read:
//   - usage, what a team lends and borrows, its group's pools and the
//     global overflow: refreshTeamType (every change of usage, quota or
//     lending goes through it, as do detachTeam's by their own bump);
//   - quotas, borrow caps and limits, weights, groups and the lenders' quota
//     sums: SetTeam and DeleteTeam (detachTeam and attachTeam);
//   - a type's schedulable capacity (the unallocated pool): setSchedulable;
//   - the policy (BorrowUnallocated): SetPolicy.
//
// An answer of an older epoch is never used, so a hit returns what the
// function would compute: both are pure functions of that state and the
// request. The memo is per Scheduler and starts empty (Clone builds a new
// one). The full-rescan reference (SetFullRescan) computes every answer,
// so the differential test (incremental_test.go) compares answers with and
// without the memo; broken (test only) leaves usage changes out of the
// epoch, the injected bug it must catch.

// quotaMemoWays is how many requests the memo keeps per team and type.
const quotaMemoWays = 4

// quotaMemoEntry is one request's answers; every entry has its verdict.
type quotaMemoEntry struct {
	epoch    uint64 // 0: empty (the memo's epoch starts at 1)
	r        resource.Vector
	verdict  quotaVerdict
	hasShare bool
	share    float64
}

type quotaMemoSet struct {
	e    [quotaMemoWays]quotaMemoEntry
	next uint8 // the way to fill next
}

type quotaMemo struct {
	epoch  uint64
	sets   []*quotaMemoSet // team idx × types + type; allocated on first use (a team uses few of the catalogue's types)
	teams  int
	off    bool // the reference computes every answer
	broken bool // test only: usage changes do not move the epoch
}

// bump forgets every answer: something checkQuota or share reads changed.
func (m *quotaMemo) bump() { m.epoch++ }

// current is the epoch answers are kept with: never 0.
func (m *quotaMemo) current() uint64 {
	if m.epoch == 0 {
		m.epoch = 1
	}
	return m.epoch
}

// bumpUsage is bump for a change of usage and the pools it moves.
func (m *quotaMemo) bumpUsage() {
	if !m.broken {
		m.epoch++
	}
}

// quotaSet returns team t's entries for type i, or nil when the memo is off.
func (s *Scheduler) quotaSet(t *team, i int) *quotaMemoSet {
	m := &s.qm
	if m.off {
		return nil
	}
	n := len(s.types)
	if m.teams != len(s.teams) || len(m.sets) != len(s.teams)*n {
		m.sets, m.teams = make([]*quotaMemoSet, len(s.teams)*n), len(s.teams)
	}
	k := t.idx*n + i
	if t.idx < 0 || k >= len(m.sets) || s.teams[t.idx] != t {
		return nil
	}
	if m.sets[k] == nil {
		m.sets[k] = new(quotaMemoSet)
	}
	return m.sets[k]
}

// find returns the current entry for r, or nil.
func (q *quotaMemoSet) find(epoch uint64, r resource.Vector) *quotaMemoEntry {
	for k := range q.e {
		if e := &q.e[k]; e.epoch == epoch && e.r == r {
			return e
		}
	}
	return nil
}

// answer makes a current entry for r at epoch with team t's answer on
// type i; its reason is the interned record (waitreason.go).
func (s *Scheduler) answer(q *quotaMemoSet, epoch uint64, t *team, i int, r resource.Vector) *quotaMemoEntry {
	v, w := s.quotaValue(t, i, r, t.usage[i], true)
	if !v.ok {
		v.wait = s.record(w)
	}
	e := q.add(epoch, r)
	e.verdict = v
	return e
}

// add makes a fresh entry for r, replacing the oldest.
func (q *quotaMemoSet) add(epoch uint64, r resource.Vector) *quotaMemoEntry {
	e := &q.e[q.next]
	q.next = (q.next + 1) % quotaMemoWays
	*e = quotaMemoEntry{epoch: epoch, r: r}
	return e
}

// checkQuota says whether team t may run amount r more of type i now
// (checkQuotaNow), from the memo when it knows.
func (s *Scheduler) checkQuota(t *team, i int, r resource.Vector) quotaVerdict {
	q := s.quotaSet(t, i)
	if q == nil {
		return s.checkQuotaNow(t, i, r)
	}
	e := q.find(s.qm.current(), r)
	if e == nil {
		e = s.answer(q, s.qm.current(), t, i, r)
	}
	return e.verdict
}

// headShare is share(t, i, r) for a head of type i, from the memo when it
// knows.
func (s *Scheduler) headShare(t *team, i int, r resource.Vector) float64 {
	q := s.quotaSet(t, i)
	if q == nil {
		return s.share(t, i, r)
	}
	e := q.find(s.qm.current(), r)
	if e == nil {
		e = s.answer(q, s.qm.current(), t, i, r)
	}
	if !e.hasShare {
		e.share, e.hasShare = s.share(t, i, r), true
	}
	return e.share
}
