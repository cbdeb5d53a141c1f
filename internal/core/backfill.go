package core

// The backfill mark (rule 10, preemption Immediate).
//
// A task that starts while a task of its team that outranks it waits for its
// instance type starts as a backfill: it runs at that task's pleasure, and
// priorityVictim never spares it (immediate.go). The mark is a function of
// the logical state when the task starts (which tasks of the team are
// pending, and their order keys), never of how the team's queue happens to
// be stored.
//
// Until session 20 it read only the team's per-type list, which holds
// neither the tasks queued since the last sort (the queue's tail: in a
// cycle, its victims whose old entries a full sort had dropped) nor, so, a
// victim of the same cycle unless an admission had left its entry there,
// stale (queue.go: dropped). Whether a task restarted into the gap a victim
// left was marked thus depended on the queue's history: on the 85% trace
// under Immediate, mean JCT 9,449 s or 12,929 s (docs/SIMULATOR.md).

// noteBackfill records, as t starts, whether it starts as a backfill:
// whether a pending task of t's team, for t's instance type, outranks t
// (would be allowed to take it by rule 3: ownVictim) now. The mark is read
// only by spared, and only for a task already preempted for priority
// (priorityLost > 0), a count that does not change while the task runs: for
// any other task it is not worked out (false). A task adopted or restored
// after a restart starts without the mark.
func (s *Scheduler) noteBackfill(t *task) {
	if s.onStart != nil {
		s.onStart(t)
	}
	t.backfill = t.priorityLost > 0 && outranked(t)
}

// outranked reports whether a pending task of t's team, for t's instance
// type, outranks t (ownVictim).
//
// The team's queue holds every pending task once (queuekeep.go): in its
// filed part, split by type into byType, or in its tail pending[sortedLen:],
// tasks queued since the last sort; either may hold stale entries, which are
// skipped. While the queue is sorted (queueSorted, or tailOnly: only tasks
// appended since), each per-type list is in queue order, holds no pending
// entry before liveStart, and the tasks that outrank t are a prefix of it
// (rank first, then submit time: ownVictim), so its walk stops at the first
// that does not; the tail, a cycle's victims, is read whole. A queue
// unsorted since (an admission that left stale entries in more than half of
// it, a changed order key) is read whole.
func outranked(t *task) bool {
	tm, i := t.team, t.typ.idx
	if !tm.queueSorted && !tm.tailOnly || i >= len(tm.byType) || tm.sortedLen > len(tm.pending) {
		return anyOutranks(tm.pending, t)
	}
	q := tm.byType[i]
	for _, o := range q[tm.liveStart(i):] {
		if !ownVictim(o, t) {
			break // queue order: no later entry outranks t
		}
		if o.state == pending {
			return true
		}
	}
	return anyOutranks(tm.pending[tm.sortedLen:], t)
}

// anyOutranks reports whether a pending task of ts, of t's instance type,
// outranks t, in any order.
func anyOutranks(ts []*task, t *task) bool {
	for _, o := range ts {
		if o.state == pending && o.typ.idx == t.typ.idx && ownVictim(o, t) {
			return true
		}
	}
	return false
}
