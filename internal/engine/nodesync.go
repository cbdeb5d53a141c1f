package engine

import (
	"context"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// NodeStatus is a node as an external source (Kubernetes) reports it.
// Spec.Unschedulable means cordoned; Healthy false (NotReady, or marked
// unhealthy) makes the core requeue the node's tasks.
type NodeStatus struct {
	Spec    model.Node
	Healthy bool
}

// SyncNodes brings the core's nodes in line with src: it adds new nodes,
// applies cordon, health, label and allocatable changes (the last once the node
// is idle: a later sync retries), and marks nodes missing from src
// unhealthy. It writes only when something changed, and returns how many
// nodes it changed.
func (e *Engine) SyncNodes(ctx context.Context, src []NodeStatus) (int, error) {
	v, err := e.do(ctx, nil, func(w *writes) (any, error) {
		known := map[string]bool{}
		healthy := map[string]bool{}
		cordoned := map[string]bool{}
		capacity := map[string]resource.Vector{}
		for _, n := range e.sched.Nodes() {
			known[n.Spec.Name], healthy[n.Spec.Name], cordoned[n.Spec.Name] = true, n.Healthy, n.Spec.Unschedulable
			capacity[n.Spec.Name] = n.Capacity
		}
		changed := 0
		seen := map[string]bool{}
		for _, s := range src {
			name := s.Spec.Name
			seen[name] = true
			if !known[name] {
				if err := e.sched.AddNode(s.Spec); err != nil {
					e.log.Warn("node left out", "node", name, "err", err)
					continue
				}
				known[name], healthy[name], cordoned[name] = true, true, s.Spec.Unschedulable
				changed++
			}
			if cordoned[name] != s.Spec.Unschedulable {
				if err := e.sched.Cordon(name, s.Spec.Unschedulable); err != nil {
					return nil, err
				}
				changed++
			}
			if applied, err := e.sched.SetNodeAllocatable(name, s.Spec.Allocatable); err != nil {
				e.log.Warn("node allocatable left as it was", "node", name, "err", err)
			} else if was, had := capacity[name]; had && applied && was != e.sched.NodeCapacity(name) {
				changed++
			}
			if relabelled, err := e.sched.SetNodeLabels(name, s.Spec.Labels); err != nil {
				return nil, err
			} else if relabelled {
				changed++
			}
			if healthy[name] != s.Healthy {
				if err := e.sched.SetNodeHealth(name, s.Healthy, e.now()); err != nil {
					return nil, err
				}
				changed++
			}
		}
		for _, n := range e.sched.Nodes() { // in the core's order, for determinism
			if name := n.Spec.Name; !seen[name] && healthy[name] {
				if err := e.sched.SetNodeHealth(name, false, e.now()); err != nil {
					return nil, err
				}
				changed++
			}
		}
		if changed > 0 {
			e.saveCluster(w)
		}
		return changed, nil
	})
	if err != nil {
		return 0, err
	}
	return v.(int), nil
}
