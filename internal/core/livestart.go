package core

// Where a walk starts in a team's per-type queue.
//
// An admission leaves its task's entry in the team's lists, stale (queue.go:
// dropped), until a full sort drops them once they are half the list. The
// oldest tasks are admitted first, so the stale entries gather at the front
// of each list, and every cycle's walk (pushNext) stepped over all of them
// again before the first pending task: tens of thousands of entries a cycle
// in the one-input benchmark's states, the cost of the cycle itself.
//
// liveFrom[i] remembers how far the front of byType[i] is known to be no longer
// pending. An entry that left the queue comes back only through enqueue,
// which unsorts the queue when the entry is still there (Resume, a requeue),
// and every cycle sorts each team's queue before its walk: a full sort
// rebuilds the lists (splitByType) and forgets liveFrom. Until then the entries
// before liveFrom stay out of the queue, so starting the walk there tries the
// same tasks in the same order as starting at the front. (A cycle's victims
// go back in their queues during the cycle and are skipped by the walk
// anyway; the next cycle's sort rebuilds the lists.)

// liveStart returns the position of the first entry of tm's list of type i
// that may be pending, moving liveFrom past the entries it finds are not.
func (tm *team) liveStart(i int) int {
	if len(tm.liveFrom) != len(tm.byType) {
		tm.liveFrom = make([]int, len(tm.byType))
	}
	q := tm.byType[i]
	p := tm.liveFrom[i]
	if p > len(q) {
		p = 0
	}
	for p < len(q) && q[p].state != pending {
		p++
	}
	tm.liveFrom[i] = p
	return p
}
