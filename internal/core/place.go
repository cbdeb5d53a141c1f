package core

// place finds nodes for every pod of t's gang, one pod per node: the tightest
// fitting nodes first (best fit, lowest position among equals), skipping nodes
// held for another task unless ignoreHolds. It returns the nodes, or nil and
// how many nodes could take a pod. The returned slice is scratch, valid until
// the next call. It changes nothing else.
func (s *Scheduler) place(t *task, ignoreHolds bool) ([]int32, int) {
	it := t.typ
	ix := &it.index
	need := t.spec.Nodes
	k0 := it.needKey(t.pod)
	whole := t.spec.PerNode.WholeNode()
	if whole {
		k0 = len(ix.counts) - 1
	}
	if k0 >= len(ix.counts) {
		return nil, 0
	}
	if avail := ix.atLeast(k0); avail < need {
		return nil, avail
	}
	out := s.cc.buf[:0]
	defer func() { s.cc.buf = out[:0] }()
	for k := k0; k < len(ix.counts) && len(out) < need; k++ {
		if ix.counts[k] == 0 {
			continue
		}
		b := &ix.buckets[k]
		for p := b.next(0); p >= 0 && len(out) < need; p = b.next(p + 1) {
			n := s.nodes[it.nodes[p]]
			if n.heldFor != nil && n.heldFor != t && !ignoreHolds {
				continue
			}
			if !t.pod.LessEq(n.free) || (whole && n.free != it.capacity) {
				continue
			}
			out = append(out, n.idx)
		}
	}
	if len(out) < need {
		return nil, len(out)
	}
	return out, need
}
