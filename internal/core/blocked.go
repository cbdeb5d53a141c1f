package core

import "sort"

// Probes: a cycle after submissions costs the new tasks, not the queue.
//
// An instance type is clean when its last evaluation changed nothing (a
// fixed point: every pending task of it was tried and stays where it was)
// and no input or due time-based rule touched it since (dirty.go). A task
// queued into a clean type (Submit, Resume) does not mark the type; it is
// added to typeAdded instead, and the next cycle first tries each added task
// alone, at the unchanged state: a probe. When every probe of the type ends
// with the task waiting and nothing else changed, the type is done for the
// cycle: the full walk would decide the same. Otherwise (a probe would
// admit, search victims among candidates, or take or wait for a
// starvation hold) the probe changes nothing, and the type joins the
// cycle's full walk, as if it had been marked.
//
// Why the full walk decides the same when every probe passes. The walk
// tries the type's tasks one head per team at a time; a task's try reads the
// state (nodes, usage, pools, holds, running tasks) and the cycle's memos.
//   - The state: a passing probe changes none of it, and neither did the
//     tries of the other tasks in the type's last evaluation (a fixed
//     point), so every try in the walk sees the state the probe saw and the
//     last evaluation saw, and the order of the tries does not matter.
//   - The placement memo (noRoom) records facts about that state: a
//     placement tried again fails again.
//   - The victim-search memo (failed) can make a task of the same team, type
//     and mode skip its search. A passing probe either searched and found no
//     candidates or did not search. A later task of the same team comes
//     after it in the team's queue, so its rank is not higher and its
//     candidates are a subset of the probe's: none. With no candidates a
//     search fails whether it runs or is skipped, and the task's wait reason
//     is the same either way. What a search leaves besides its memo is a
//     wake-up (fair share's minimum runtime of a candidate it filtered), and
//     the later task's are among the probe's (same victims, fewer pass its
//     rank filter). The other way round, a memo that in the walk would let
//     the probed task skip a search was written by an earlier task of its
//     team whose own search saw every victim the probe sees, and their
//     wake-ups.
//   - So the type's wake-up (the earliest over its tasks' time-based rules)
//     is what it was, or the probe's if earlier; its unpaid mark is
//     unchanged (only searches with candidates set it).
//   - A probe starts with the memo the walk would hold at its place: the
//     last one a task of its team before it (in queue order) wrote in the
//     type's last walk (memoLog). Tasks queued since, and tried by probes,
//     wrote memos too, but only after searches with no candidates, and
//     every later task of the team then has none either: its search fails,
//     run or skipped.
// Removing a pending task, or changing its priority, marks the type: its
// earlier memo writes or hold may have shaped what later tasks did.
//
// The differential test (incremental_test.go) checks this against the full
// rescan; breakProbe (probes treat a search with candidates as a failure,
// without joining the walk) is the injected bug it must catch.

// touchAdded records that t joined its type's queue (submitted or resumed)
// and nothing else changed for the type.
func (s *Scheduler) touchAdded(t *task) {
	s.dirty = true
	if s.breakMarks {
		return
	}
	s.ensureMarks()
	i := t.typ.idx
	if !s.typeDirty[i] {
		s.typeAdded[i] = append(s.typeAdded[i], t)
	}
}

// probeAdded tries the added tasks of the clean types this cycle does not
// walk, each alone. A type whose probe would change more than the task's own
// wait reason and wake-up is walked in full (work); its probes' wake-ups are
// forgotten, as the walk sets them again.
func (s *Scheduler) probeAdded() {
	if s.limitsDirty {
		return
	}
	for i, list := range s.typeAdded {
		if len(list) == 0 || s.work[i] {
			continue
		}
		pass := true
		for _, t := range list {
			if t.state != pending {
				continue
			}
			if t.holds() || t.team.strict() {
				pass = false // a strict queue's try depends on those ahead (strictfifo.go)
				break
			}
			s.probing, s.probeHit, s.curType = true, false, i
			s.seedMemo(t)
			s.tried++
			s.tryTask(t, nil)
			s.probing = false
			clear(s.cc.failed) // each probe stands alone (see above)
			clear(s.cc.noRoom)
			if s.probeHit {
				pass = false
				break
			}
		}
		clear(list)
		s.typeAdded[i] = list[:0]
		if pass {
			s.probed++
			continue
		}
		s.work[i] = true
		s.typeWake[i] = never
		if i < len(s.unpaid) {
			s.unpaid[i] = false
		}
	}
	s.curType, s.probeHit = -1, false
	clear(s.cc.borrowed)
}

// memoEntry is one write of the victim-search memo in a walk: by task t.
type memoEntry struct {
	t *task
	f failedAttempt
}

// noteFailed records that t's victim search in mode key failed: in the
// cycle's memo and, in a walk, in the type's memo log for later probes.
func (s *Scheduler) noteFailed(key attemptKey, t *task) {
	f := failedAttempt{[3]int64{t.pod.GPUs, t.pod.MilliCPU, t.pod.MemMiB}, t.spec.Nodes, t.reqLevel}
	s.cc.failed[key] = f
	if s.probing || s.trialing || s.quietLog {
		return
	}
	if s.memoLog == nil {
		s.memoLog = map[attemptKey][]memoEntry{}
	}
	s.memoLog[key] = append(s.memoLog[key], memoEntry{t, f})
}

// seedMemo sets the cycle's memo for t's team and type to what the walk
// would hold when t's turn came: the last logged write by a task before t.
func (s *Scheduler) seedMemo(t *task) {
	for _, m := range []preemptMode{modeGuaranteed, modeBorrow} {
		key := s.taskKey(t, m)
		log := s.memoLog[key]
		k := sort.Search(len(log), func(k int) bool { return !queueLess(log[k].t, t) })
		if k > 0 {
			s.cc.failed[key] = log[k-1].f
		}
	}
}

// resetMemoLog forgets the logged memo writes of the types this cycle walks.
func (s *Scheduler) resetMemoLog() {
	for key, log := range s.memoLog {
		if s.work[key.typ()] {
			clear(log)
			s.memoLog[key] = log[:0]
		}
	}
}
