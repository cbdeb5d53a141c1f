package core

// Picking a hold's nodes from the free-capacity index.
//
// reserve holds, for a task without a required topology, the schedulable
// unheld nodes of its type (matching its selector) with the most free
// room, lowest position among equals: a stable sort of the type's nodes by
// free room, descending. The index (nodeIndex) already buckets every
// schedulable node by exactly that room (its key is primary(free)), each
// bucket's members in position order; so taking buckets from the top,
// members lowest first, lists the same nodes in the same order, and the
// pick stops at the gang's size instead of sorting the whole type (10,000
// nodes at the benchmark's scale, in every cycle that takes a hold).
// TestHoldPickMatchesSort compares the two on random states.

// holdPick returns the first need nodes of it, in the order reserve holds
// them, that t may hold: schedulable (indexed), unheld, matching t's
// selector; nil if there are fewer.
func (s *Scheduler) holdPick(it *itype, t *task, need int) []*node {
	ix := &it.index
	var out []*node
	for k := len(ix.counts) - 1; k >= 0 && len(out) < need; k-- {
		if ix.counts[k] == 0 {
			continue
		}
		b := &ix.buckets[k]
		for p := b.next(0); p >= 0 && len(out) < need; p = b.next(p + 1) {
			n := s.nodes[it.nodes[p]]
			if n.heldFor == nil && (t.sel == "" || selects(n, t)) {
				out = append(out, n)
			}
		}
	}
	if len(out) < need {
		return nil
	}
	return out
}
