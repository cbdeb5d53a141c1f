package core

import (
	"cmp"
	"slices"

	"github.com/taskgov/taskgov/internal/resource"
)

// keyFor is the smallest free-capacity bucket a pod of t fits in.
func keyFor(t *task) int {
	if t.spec.PerNode.WholeNode() {
		return len(t.typ.index.counts) - 1
	}
	return t.typ.needKey(t.pod)
}

// usable reports whether node n can take one pod of t now.
func usable(n *node, t *task, ignoreHolds bool) bool {
	if n.heldFor != nil && n.heldFor != t && !ignoreHolds && !spareOnHeld(n, t) {
		return false
	}
	if t.sel != "" && !selects(n, t) {
		return false
	}
	if t.spec.PerNode.WholeNode() {
		return n.free == n.capacity
	}
	return t.pod.LessEq(n.free)
}

// placeMode says how place answers; the zero value is the cycle's ordinary
// question ("where does this gang go best, now?").
type placeMode struct {
	// ignoreHolds counts nodes held for another (starving) task as usable.
	ignoreHolds bool
	// quick answers only whether the gang fits, not where best: the victim
	// search asks it; the final placement is made without it.
	quick bool
	// only, when set, confines the gang to one domain (topology-aware
	// preemption).
	only *domain
}

// place finds nodes for every pod of t's gang, one pod per node. For a gang
// on a type with topology labels it tries the tightest level first: among
// the domains of the bottom level that could hold the gang, the tightest
// (best fit), then one level up, and so on; a required topology stops at its
// level, otherwise the search spreads the gang over the fewest top-level
// domains (selectAcross), then over any nodes of the type. Within a domain and
// for single pods, the tightest fitting nodes go first (lowest position among
// equals); a single pod with a required level on a labelled type only takes
// a node inside a domain of that level. It skips nodes held for another task
// unless m.ignoreHolds.
//
// It returns the nodes, or nil and how many nodes could take a pod; it also
// leaves in s.cc.bestSpread the lowest spread a placement could have had. The
// returned slice is scratch, valid until the next call. It changes nothing
// else.
func (s *Scheduler) place(t *task, m placeMode) ([]int32, int) {
	ignoreHolds := m.ignoreHolds
	it := t.typ
	ix := &it.index
	need := t.spec.Nodes
	k0 := keyFor(t)
	s.cc.bestSpread = 0
	if need > 1 {
		s.cc.bestSpread = -1
	}
	if k0 >= len(ix.counts) {
		return nil, 0
	}
	if avail := ix.atLeast(k0); avail < need {
		return nil, avail
	}
	// A gang that found no room earlier in this cycle finds none now either,
	// unless something was freed since (a preemption clears the memo).
	memo := s.cc.noRoom != nil && !ignoreHolds && !m.quick && m.only == nil && !t.holds()
	key := placeKey{typ: it.idx, pod: t.pod, nodes: need, whole: t.spec.PerNode.WholeNode(), req: t.reqLevel, sel: t.sel}
	if memo && s.cc.noRoom[key] {
		return nil, ix.atLeast(k0)
	}
	out := s.cc.buf[:0]
	defer func() {
		s.cc.buf = out[:0]
		if memo && len(out) < need {
			s.cc.noRoom[key] = true
		}
	}()
	ok := false
	if d := m.only; d != nil {
		s.cc.bestSpread = len(s.levels) - d.level
		if out, ok = s.selectIn(t, d, k0, need, ignoreHolds, out); ok {
			return out, need
		}
		return nil, d.fit(k0)
	}
	if need > 1 && it.topo.labeled > 0 && s.firstFit {
		s.cc.bestSpread = s.lowestFeasibleSpread(it, k0, need)
		for _, ni := range it.nodes {
			if n := s.nodes[ni]; n.schedulable && usable(n, t, ignoreHolds) && len(out) < need {
				out = append(out, ni)
			}
		}
		if len(out) < need {
			return nil, len(out)
		}
		return out, need
	}
	if need > 1 && it.topo.labeled > 0 && m.quick {
		// A yes/no answer for victim search: any domain of the required
		// level that takes the gang will do, and without a requirement the
		// whole type is the last resort anyway, so the flat check below decides.
		if t.reqLevel >= 0 {
			for _, d := range it.topo.levels[t.reqLevel] {
				if d.fit(k0) < need {
					continue
				}
				out = out[:0]
				if out, ok = s.selectIn(t, d, k0, need, ignoreHolds, out); ok {
					return out, need
				}
			}
			return nil, ix.atLeast(k0)
		}
	} else if need > 1 && it.topo.labeled > 0 {
		m := len(s.levels)
		top := max(t.reqLevel, 0)
		s.cc.bestSpread = m + 1
		found := false
		for l := m - 1; l >= top; l-- {
			for _, fd := range s.fitting(it, l, k0, need) { // selectIn never calls fitting

				if !found {
					s.cc.bestSpread, found = m-l, true
				}
				out = out[:0]
				if out, ok = s.selectIn(t, fd.d, k0, need, ignoreHolds, out); ok {
					return out, need
				}
			}
		}
		if t.reqLevel >= 0 {
			return nil, ix.atLeast(k0)
		}
		// No single top-level domain holds the gang: spread it over the
		// fewest top-level domains, as inside a domain. Nodes outside the
		// tree (unlabelled ones) are left to the flat search below.
		out = out[:0]
		if out, ok = s.selectAcross(t, k0, need, ignoreHolds, out); ok {
			return out, need
		}
		out = out[:0]
	}
	if need == 1 && !m.quick && it.topo.labeled > 0 && treePlacesOne(t) {
		if ni := s.tightestInTree(t, k0, ignoreHolds); ni >= 0 {
			out = append(out, ni) // among the tightest nodes, the tightest domains (placeone.go)
			return out, need
		}
	}
	// A required level holds for a single pod too where the type is
	// labelled: a node outside every domain of that level fits none.
	inDomain := t.reqLevel >= 0 && it.topo.labeled > 0
	room := 0
	for k := k0; k < len(ix.counts) && len(out) < need; k++ {
		if ix.counts[k] == 0 {
			continue
		}
		b := &ix.buckets[k]
		for p := b.next(0); p >= 0 && len(out) < need; p = b.next(p + 1) {
			if n := s.nodes[it.nodes[p]]; usable(n, t, ignoreHolds) {
				if room++; !inDomain || n.dom[t.reqLevel] >= 0 {
					out = append(out, n.idx)
				}
			}
		}
	}
	if len(out) < need {
		return nil, room
	}
	return out, need
}

// selectIn appends to out up to need nodes of domain d for t's pods: a child
// domain that holds them all if one does (the tightest), otherwise spread
// over the fewest children (spreadOver); at the bottom level, the tightest
// nodes first. It reports whether all need were found.
func (s *Scheduler) selectIn(t *task, d *domain, k0, need int, ignoreHolds bool, out []int32) ([]int32, bool) {
	it := t.typ
	if d.children == nil {
		for k := k0; k < len(d.counts) && need > 0; k++ {
			if d.counts[k] == 0 {
				continue
			}
			for _, ni := range d.nodes {
				n := s.nodes[ni]
				if int(it.index.key[n.pos]) != k || !usable(n, t, ignoreHolds) {
					continue
				}
				out = append(out, ni)
				if need--; need == 0 {
					break
				}
			}
		}
		return out, need == 0
	}
	var buf [16]fitDomain
	kids := buf[:0]
	for _, c := range d.children {
		if child := it.topo.levels[d.level+1][c]; child.fit(k0) > 0 {
			kids = append(kids, fitDomain{child, child.fit(k0)})
		}
	}
	// A child that holds the rest, tightest first.
	slices.SortStableFunc(kids, func(a, b fitDomain) int { return cmp.Compare(a.fit, b.fit) })
	for _, c := range kids {
		if c.fit < need {
			continue
		}
		start := len(out)
		var ok bool
		if out, ok = s.selectIn(t, c.d, k0, need, ignoreHolds, out); ok {
			return out, true
		}
		out = out[:start]
	}
	return s.spreadOver(t, kids, k0, need, ignoreHolds, out)
}

// spreadOver appends to out need nodes for t's pods taken from the domains
// kids, none of which is known to hold them all: the roomiest first, and as
// soon as one holds the rest, the tightest that does (so a gang spans the
// fewest domains and leaves the larger ones whole). It reorders kids and
// reports whether all need were found.
func (s *Scheduler) spreadOver(t *task, kids []fitDomain, k0, need int, ignoreHolds bool, out []int32) ([]int32, bool) {
	slices.SortStableFunc(kids, func(a, b fitDomain) int { return cmp.Compare(b.fit, a.fit) })
	for len(kids) > 0 {
		i := 0
		for j, c := range kids {
			if c.fit >= need && (kids[i].fit < need || c.fit < kids[i].fit) {
				i = j
			}
		}
		c := kids[i]
		kids = slices.Delete(kids, i, i+1)
		before := len(out)
		out, _ = s.selectIn(t, c.d, k0, min(c.fit, need), ignoreHolds, out)
		if need -= len(out) - before; need == 0 {
			return out, true
		}
	}
	return out, false
}

// selectAcross places need pods of t across the type's top-level domains
// (spreadOver over them all); the last resort of a gang without a required
// level that no single domain holds.
func (s *Scheduler) selectAcross(t *task, k0, need int, ignoreHolds bool, out []int32) ([]int32, bool) {
	it := t.typ
	kids := s.cc.fits[:0]
	for _, d := range it.topo.levels[0] {
		if f := d.fit(k0); f > 0 {
			kids = append(kids, fitDomain{d, f})
		}
	}
	s.cc.fits = kids
	return s.spreadOver(t, kids, k0, need, ignoreHolds, out)
}

// placeKey identifies a placement question within a cycle.
type placeKey struct {
	typ   int
	pod   resource.Vector
	nodes int
	whole bool
	req   int
	sel   string
}
