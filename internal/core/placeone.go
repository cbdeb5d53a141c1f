package core

// Single pods in the domain tree: among the tightest nodes, the one in the
// tightest domains.
//
// A single-node task goes to the tightest node (the smallest free-capacity
// bucket that takes its pod), as every pod does. On a labelled type, for a
// task that names a level (its preferred level, else its required one),
// which of the equally tight nodes follows the domains they lie in: the
// tightest domain of that level (fewest nodes with room for the pod) that
// holds a node of that bucket, lowest id among equals, then its tightest
// such child, and so on down to the bottom level, and there the lowest
// position; as Kueue's BestFit takes the tightest block, then rack, then
// host below the requested level. So a pod fills a gap and the roomiest
// domains stay whole for gangs that require one (scenario
// kueue/tas-block-required-one-pod). Levels above the named one do not
// count (Kueue's rack-required pod takes the first of the tightest racks,
// whichever block: kueue/tas-rack-required-one-pod).
//
// Cost: one pass over the domains of the named level (a gang's placement
// passes over every level's: fitting), the children of one domain per level
// below, and the nodes of one bottom domain; never the type's nodes (unless
// its domains at that level are single nodes). Where that path finds no
// usable node (held for another task, or outside the task's node
// selector), or the tightest nodes are outside the tree (a missing label),
// placement takes the tightest node in position order, as without the tree.

// treePlacesOne reports whether a single pod of t is placed by the domain
// tree (tightestInTree) rather than by position among the tightest nodes.
func treePlacesOne(t *task) bool {
	return t.reqLevel >= 0 || t.spec.PreferredTopology != ""
}

// namedLevel is the level a single pod of t is placed from: its preferred
// level (tried first, and the tighter when both are set), else its
// required one.
func (s *Scheduler) namedLevel(t *task) int {
	if l := s.levelOf(t.spec.PreferredTopology); l >= 0 {
		return l
	}
	return t.reqLevel
}

// tightestInTree returns the node for a single pod of t of key k0 as above,
// or -1 when the descent finds no usable node there.
func (s *Scheduler) tightestInTree(t *task, k0 int, ignoreHolds bool) int32 {
	it := t.typ
	ix := &it.index
	k := k0 // the tightest bucket that has a node
	for k < len(ix.counts) && ix.counts[k] == 0 {
		k++
	}
	if k >= len(ix.counts) {
		return -1
	}
	level := s.namedLevel(t)
	at := s.tightestAt(it, level, k0, k)
	for at != nil && at.children != nil {
		var best *domain
		bestFit := 0
		for _, c := range at.children {
			d := it.topo.levels[level+1][c]
			if d.counts[k] == 0 {
				continue
			}
			if f := d.fit(k0); best == nil || f < bestFit || (f == bestFit && d.id < best.id) {
				best, bestFit = d, f
			}
		}
		if best == nil {
			break // at's tightest nodes lack the next level's label
		}
		at, level = best, level+1
	}
	if at == nil {
		return -1
	}
	for _, ni := range at.nodes {
		n := s.nodes[ni]
		if int(ix.key[n.pos]) != k || !usable(n, t, ignoreHolds) {
			continue
		}
		if t.reqLevel >= 0 && n.dom[t.reqLevel] < 0 {
			continue
		}
		return ni
	}
	return -1
}

// tightestAt is the domain of level l with the fewest nodes that have key k0
// free (lowest id among equals) among those holding a node of bucket k, or
// nil. It passes over the level's domains, or over the nodes of bucket k
// where they are fewer (a tight bucket of a busy type).
func (s *Scheduler) tightestAt(it *itype, l, k0, k int) *domain {
	doms := it.topo.levels[l]
	var best *domain
	bestFit := 0
	consider := func(d *domain) {
		if f := d.fit(k0); best == nil || f < bestFit || (f == bestFit && d.id < best.id) {
			best, bestFit = d, f
		}
	}
	if ix := &it.index; ix.counts[k] < len(doms) {
		b := &ix.buckets[k]
		for p := b.next(0); p >= 0; p = b.next(p + 1) {
			if id := s.nodes[it.nodes[p]].dom[l]; id >= 0 {
				consider(doms[id])
			}
		}
		return best
	}
	for _, d := range doms {
		if d.counts[k] > 0 {
			if consider(d); bestFit == 1 {
				break // no domain with a node of bucket k is tighter; later ones have higher ids
			}
		}
	}
	return best
}
