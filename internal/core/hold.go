package core

import (
	"sort"

	"github.com/taskgov/taskgov/internal/resource"
)

// Starvation guard. A task that fits its team's quota but has found no room
// for longer than the policy's starvation bound gets a hold on the nodes it
// needs: no other task is placed on them, so they drain as their tasks end,
// and the task starts at the latest when the longest of those ends. Holds are
// sticky across cycles, so the set cannot wander while it drains.
//
// One task holds nodes of an instance type at a time: the first starving task
// in cycle order; the next one takes its hold once that one starts (or stops
// qualifying). Held nodes sit idle while they drain, so a hold per starving
// task let the holds cover most of a busy cluster at once and its backlog grow
// without end (see sim.TestBacklogStaysBounded).

// reserve holds nodes for t: the ones with the most free room (lowest position
// among equals). It holds nothing and returns false if another task holds
// nodes of t's type or too few nodes are available.
func (s *Scheduler) reserve(t *task) bool {
	if t.holds() {
		return true
	}
	it := t.typ
	if it.holder != nil {
		return false
	}
	var cands []*node
	if t.reqLevel >= 0 && it.topo.labeled > 0 {
		for _, ni := range s.holdDomain(t) {
			n := s.nodes[ni]
			if n.schedulable && n.heldFor == nil && (t.sel == "" || selects(n, t)) {
				cands = append(cands, n)
			}
		}
		sort.SliceStable(cands, func(a, b int) bool { return it.primary(cands[a].free) > it.primary(cands[b].free) })
	} else {
		cands = s.holdPick(it, t, t.spec.Nodes) // the same nodes, from the index (holdpick.go)
	}
	if len(cands) < t.spec.Nodes {
		return false
	}
	for _, n := range cands[:t.spec.Nodes] {
		n.heldFor = t
		n.afterHold = resource.Zero
		it.held = append(it.held, n.idx)
	}
	it.heldAt = s.placements
	it.holder = t
	s.holdChanges++
	s.markHold(it.idx)
	return true
}

// releaseHold drops t's hold, if any.
func (s *Scheduler) releaseHold(t *task) {
	if !t.holds() {
		return
	}
	s.holdChanges++
	s.markHold(t.typ.idx)
	clear(s.cc.noRoom) // the released nodes may fit placements that failed
	for _, ni := range t.typ.held {
		s.nodes[ni].heldFor = nil
		s.nodes[ni].afterHold = resource.Zero
	}
	t.typ.holder = nil
	t.typ.held = nil
}

// releaseHoldsOn drops the whole hold that covers n, if any; the task picks a
// fresh set in the next cycle.
func (s *Scheduler) releaseHoldsOn(n *node) {
	if n.heldFor != nil {
		s.releaseHold(n.heldFor)
	}
}

// busyHeld counts t's held nodes that cannot take its pod yet.
func (s *Scheduler) busyHeld(t *task) int {
	busy := 0
	for _, ni := range t.heldNodes() {
		n := s.nodes[ni]
		if !usable(n, t, true) {
			busy++
		}
	}
	return busy
}

// holdDomain picks, for a required-topology task, the domain of its level
// whose unheld schedulable nodes have the most free room and are enough for
// the gang; it returns that domain's nodes (nil if none qualifies).
func (s *Scheduler) holdDomain(t *task) []int32 {
	var best []int32
	bestFree := -1
	for _, d := range t.typ.topo.levels[t.reqLevel] {
		free, n := 0, 0
		for _, ni := range d.nodes {
			if nd := s.nodes[ni]; nd.schedulable && nd.heldFor == nil && (t.sel == "" || selects(nd, t)) {
				free += t.typ.primary(nd.free)
				n++
			}
		}
		if n >= t.spec.Nodes && free > bestFree {
			best, bestFree = d.nodes, free
		}
	}
	return best
}

// afterHold reports whether t's pod on n counts in n.afterHold: n is held
// for another task, and t was assigned after the hold was taken.
func afterHold(n *node, t *task) bool {
	return n.heldFor != nil && n.heldFor != t && t.placed > n.typ.heldAt
}

// spareOnHeld reports whether a pod of t fits in the part of held node n
// that its holder will never need: the holder's pod, the pods placed there
// since the hold was taken and t's together fit the node. A hold reserves
// what its holder needs, not the whole node: the holder still starts at
// the latest when the tasks present at its hold end, and the rest of the
// node does not sit idle meanwhile (rule 8). A whole-node holder leaves
// nothing spare.
func spareOnHeld(n *node, t *task) bool {
	h := n.heldFor
	if h.spec.PerNode.WholeNode() || t.spec.PerNode.WholeNode() {
		return false
	}
	return n.afterHold.Add(t.pod).Add(h.pod).LessEq(n.capacity)
}
