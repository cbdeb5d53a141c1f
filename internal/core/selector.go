package core

import (
	"slices"

	"github.com/taskgov/taskgov/internal/model"
)

// Node selectors. A task may confine its pods to nodes carrying given
// labels (model.TaskSpec.NodeSelector: a Kubernetes workload's nodeSelector
// beyond its instance type). The free-capacity and topology indexes count
// every node of a type, so with a selector they are upper bounds: place
// still walks them, and usable refuses a node that does not match, so a
// gang lands only on matching nodes. A task without a selector (every API
// task, so far) pays one length check per node looked at.

// selects reports whether node n carries every label t's selector asks for.
func selects(n *node, t *task) bool {
	for k, v := range t.spec.NodeSelector {
		if have, ok := n.spec.Labels[k]; !ok || have != v {
			return false
		}
	}
	return true
}

// matchingNodes counts the schedulable nodes of t's type that t's selector
// accepts.
func (s *Scheduler) matchingNodes(t *task) int {
	c := 0
	for _, ni := range t.typ.nodes {
		if n := s.nodes[ni]; n.schedulable && selects(n, t) {
			c++
		}
	}
	return c
}

// SetNodeLabels replaces a node's labels except its topology labels, which
// place it in the topology tree and stay as they were when it was added.
// Pending tasks of its type are evaluated again; a hold on the node is
// dropped, since the node may no longer suit its holder. It reports whether
// anything changed.
func (s *Scheduler) SetNodeLabels(name string, labels map[string]string) (bool, error) {
	n, err := s.nodeByName(name)
	if err != nil {
		return false, err
	}
	if s.sameLabels(n.spec.Labels, labels) {
		return false, nil // the usual case, on every node sync: no allocation
	}
	next := make(map[string]string, len(labels))
	for k, v := range labels {
		if !slices.Contains(s.levels, k) {
			next[k] = v
		}
	}
	for _, k := range s.levels {
		if v, ok := n.spec.Labels[k]; ok {
			next[k] = v
		}
	}
	n.spec.Labels = next
	s.releaseHoldsOn(n)
	s.touchUsage(n.typ.idx)
	return true, nil
}

// noMatchingNodes is t's wait reason when too few nodes match its selector.
func noMatchingNodes(t *task, matching int) model.WaitReason {
	return model.WaitReason{Code: model.NoMatchingNodes, InstanceType: t.typ.spec.Name,
		Used: int64(matching), Need: int64(t.spec.Nodes), Detail: t.sel}
}

// sameLabels reports whether two label sets agree on every label but the
// topology ones.
func (s *Scheduler) sameLabels(cur, next map[string]string) bool {
	n := 0
	for k, v := range next {
		if slices.Contains(s.levels, k) {
			continue
		}
		if have, ok := cur[k]; !ok || have != v {
			return false
		}
		n++
	}
	for k := range cur {
		if !slices.Contains(s.levels, k) {
			n--
		}
	}
	return n == 0
}
