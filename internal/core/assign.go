package core

import (
	"sort"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// podOn is what one pod of t takes on n: its request, or for a whole-node
// task the node's whole capacity (which may be less than the type's).
func (t *task) podOn(n *node) resource.Vector {
	if t.spec.PerNode.WholeNode() {
		return n.capacity
	}
	return t.pod
}

// assign starts t on nodes: it takes their capacity and GPUs and charges the
// team. The nodes must have room; the caller checked with place.
func (s *Scheduler) assign(t *task, nodes []int32) {
	t.pods = make([]placedPod, len(nodes))
	s.placements++
	t.placed = s.placements
	for r, ni := range nodes {
		n := s.nodes[ni]
		take := t.podOn(n)
		n.free = n.free.Sub(take)
		if afterHold(n, t) {
			n.afterHold = n.afterHold.Add(take)
		}
		t.pods[r] = placedPod{node: ni, gpus: takeGPUs(n, take.GPUs)}
		s.reindex(n)
	}
	s.addUsage(t.team, t.typ.idx, t.total)
	run := &t.team.run[t.typ.idx]
	t.runPos = int32(len(*run))
	*run = append(*run, t)
	t.state = running
}

// unassign is assign's exact inverse: capacity, GPU indices and team usage
// return. The task keeps t.pods so that reassign can restore it.
func (s *Scheduler) unassign(t *task) {
	if s.trialing {
		s.keepRunOrder(t) // stoptrial.go
	}
	for _, p := range t.pods {
		n := s.nodes[p.node]
		n.free = n.free.Add(t.podOn(n))
		n.freeGPUs |= p.gpus
		if afterHold(n, t) {
			n.afterHold = n.afterHold.Sub(t.podOn(n))
		}
		s.reindex(n)
	}
	s.addUsage(t.team, t.typ.idx, resource.Zero.Sub(t.total))
	run := &t.team.run[t.typ.idx]
	last := (*run)[len(*run)-1]
	(*run)[t.runPos] = last
	last.runPos = t.runPos
	*run = (*run)[:len(*run)-1]
	t.state = pending
}

// reassign undoes an unassign made while simulating a preemption, putting the
// task back on exactly the same nodes and GPUs.
func (s *Scheduler) reassign(t *task) {
	for _, p := range t.pods {
		n := s.nodes[p.node]
		n.free = n.free.Sub(t.podOn(n))
		n.freeGPUs &^= p.gpus
		if afterHold(n, t) {
			n.afterHold = n.afterHold.Add(t.podOn(n))
		}
		s.reindex(n)
	}
	s.addUsage(t.team, t.typ.idx, t.total)
	run := &t.team.run[t.typ.idx]
	t.runPos = int32(len(*run))
	*run = append(*run, t)
	t.state = running
}

// placement renders t's pods for a decision.
func (s *Scheduler) placement(t *task) []model.PodPlacement {
	out := make([]model.PodPlacement, len(t.pods))
	for r, p := range t.pods {
		out[r] = model.PodPlacement{Rank: r, Node: s.nodes[p.node].spec.Name}
		if p.gpus != 0 {
			out[r].GPUs = gpuList(p.gpus)
		}
	}
	return out
}

func sortBySeq(ts []*task) { sort.Slice(ts, func(a, b int) bool { return ts[a].seq < ts[b].seq }) }
