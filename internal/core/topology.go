package core

import (
	"cmp"
	"slices"
)

// Topology. Each instance type keeps a tree of domains, one level per
// topology label key (top layer first); a domain is one network node,
// restricted to the nodes of that type. Every domain counts its schedulable
// nodes per free-capacity bucket, kept in step by reindex, so the nodes a
// domain can offer a pod are known in O(buckets) without a scan.

// domain is one network node at one level.
type domain struct {
	id       int32
	level    int
	name     string  // the label value
	children []int32 // domains one level down; nil at the bottom level
	nodes    []int32 // member nodes (global index), in position order
	counts   []int   // schedulable members per free-capacity bucket
}

// fit is how many of d's schedulable nodes have at least key k free.
func (d *domain) fit(k int) int {
	n := 0
	for ; k < len(d.counts); k++ {
		n += d.counts[k]
	}
	return n
}

// topoIndex is one instance type's domain tree.
type topoIndex struct {
	levels  [][]*domain        // per level, by id
	byName  []map[string]int32 // per level: label value -> id
	labeled int                // nodes with at least one topology label
}

// addToTopology files node n under its label values, creating domains.
func (s *Scheduler) addToTopology(n *node) {
	it := n.typ
	tx := &it.topo
	if tx.levels == nil {
		tx.levels = make([][]*domain, len(s.levels))
		tx.byName = make([]map[string]int32, len(s.levels))
		for l := range tx.byName {
			tx.byName[l] = map[string]int32{}
		}
	}
	n.dom = make([]int32, len(s.levels))
	parent := int32(-1)
	any := false
	for l, key := range s.levels {
		v, ok := n.spec.Labels[key]
		if !ok || v == "" {
			n.dom[l], parent = -1, -1
			continue
		}
		any = true
		id, seen := tx.byName[l][v]
		if !seen {
			id = int32(len(tx.levels[l]))
			tx.levels[l] = append(tx.levels[l], &domain{id: id, level: l, name: v, counts: make([]int, it.keys())})
			tx.byName[l][v] = id
			if parent >= 0 {
				p := tx.levels[l-1][parent]
				p.children = append(p.children, id)
			}
		}
		tx.levels[l][id].nodes = append(tx.levels[l][id].nodes, n.idx)
		n.dom[l], parent = id, id
	}
	if any {
		tx.labeled++
	}
}

// moveInDomains shifts n from bucket old to bucket k in every domain it
// belongs to (-1: not indexed).
func (s *Scheduler) moveInDomains(n *node, old, k int) {
	for l, id := range n.dom {
		if id < 0 {
			continue
		}
		d := n.typ.topo.levels[l][id]
		if old >= 0 {
			d.counts[old]--
		}
		if k >= 0 {
			d.counts[k]++
		}
	}
}

// spreadOf is the spread level of a placement on type it: 0 for one node;
// otherwise the number of levels climbed from the bottom to the deepest level
// all nodes share (len(levels)+1 if none); -1 if the type has no labels.
func (s *Scheduler) spreadOf(it *itype, nodes []int32) int {
	if len(nodes) <= 1 {
		return 0
	}
	if it.topo.labeled == 0 {
		return -1
	}
	m := len(s.levels)
	for l := m - 1; l >= 0; l-- {
		id := s.nodes[nodes[0]].dom[l]
		same := id >= 0
		for _, ni := range nodes[1:] {
			if s.nodes[ni].dom[l] != id {
				same = false
				break
			}
		}
		if same {
			return m - l
		}
	}
	return m + 1
}

// levelOf returns the level index of a topology label key, or -1.
func (s *Scheduler) levelOf(key string) int {
	for l, k := range s.levels {
		if k == key {
			return l
		}
	}
	return -1
}

// fitDomain is a domain with its fit for the pod being placed.
type fitDomain struct {
	d   *domain
	fit int
}

// fitting returns the domains of level l that could take need pods of key
// k, tightest first (best fit), lowest id among equals. The slice is
// scratch owned by the cycle, valid until the next call.
func (s *Scheduler) fitting(it *itype, l, k, need int) []fitDomain {
	out := s.cc.fits[:0]
	for _, d := range it.topo.levels[l] {
		if f := d.fit(k); f >= need {
			out = append(out, fitDomain{d, f})
		}
	}
	slices.SortStableFunc(out, func(a, b fitDomain) int { return cmp.Compare(a.fit, b.fit) })
	s.cc.fits = out
	return out
}

// largestFit is the most nodes any level-l domain could offer a pod of key k.
func (s *Scheduler) largestFit(it *itype, l, k int) int {
	best := 0
	for _, d := range it.topo.levels[l] {
		best = max(best, d.fit(k))
	}
	return best
}

// lowestFeasibleSpread is the spread of the tightest level at which some
// domain could take need pods of key k (len(levels)+1 if none).
func (s *Scheduler) lowestFeasibleSpread(it *itype, k, need int) int {
	m := len(s.levels)
	for l := m - 1; l >= 0; l-- {
		for _, d := range it.topo.levels[l] {
			if d.fit(k) >= need {
				return m - l
			}
		}
	}
	return m + 1
}
