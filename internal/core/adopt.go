package core

import (
	"fmt"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Adopt restores a task that is still running where an earlier server placed
// it, as Kubernetes pods outlive a taskgov restart. pods must name one node of
// the task's instance type per rank, each with room for the pod and with the
// listed GPUs free. On error nothing changed; the caller restores the task
// pending instead (and stops its pods).
func (s *Scheduler) Adopt(spec model.TaskSpec, resumes, retries int, checkpointAt, startedAt time.Time, pods []model.PodPlacement, now time.Time) error {
	spec = spec.WithDefaults()
	if len(pods) != spec.Nodes {
		return fmt.Errorf("task %q has %d pod(s) recorded but needs %d: %w", spec.Name, len(pods), spec.Nodes, model.ErrConflict)
	}
	it, ok := s.typeIdx[spec.InstanceType]
	if !ok {
		return fmt.Errorf("task %q: instance type %q is gone: %w", spec.Name, spec.InstanceType, model.ErrConflict)
	}
	typ := s.types[it]
	pod := model.PodVector(spec.PerNode, typ.spec)
	nodes := make([]int32, len(pods))
	masks := make([]uint64, len(pods))
	seen := map[int32]bool{}
	for r, p := range pods {
		n, err := s.nodeByName(p.Node)
		if err != nil {
			return fmt.Errorf("task %q rank %d: %w", spec.Name, r, err)
		}
		if n.typ != typ || seen[n.idx] {
			return fmt.Errorf("task %q rank %d: node %s is not a free %s node for it: %w", spec.Name, r, p.Node, spec.InstanceType, model.ErrConflict)
		}
		seen[n.idx] = true
		for _, g := range p.GPUs {
			if g < 0 || g >= 64 || n.freeGPUs&(1<<uint(g)) == 0 {
				return fmt.Errorf("task %q rank %d: GPU %d of node %s is not free: %w", spec.Name, r, g, p.Node, model.ErrConflict)
			}
			masks[r] |= 1 << uint(g)
		}
		take := pod
		if spec.PerNode.WholeNode() {
			take = n.capacity
		}
		if !take.LessEq(n.free) || int64(len(p.GPUs)) != take.GPUs {
			return fmt.Errorf("task %q rank %d: node %s has no room for its pod: %w", spec.Name, r, p.Node, model.ErrConflict)
		}
		nodes[r] = n.idx
	}
	if err := s.Submit(spec, now); err != nil {
		return err
	}
	t := s.tasks[spec.Name]
	t.resumes, t.retries, t.checkpointAt = int32(resumes), retries, checkpointAt
	s.assign(t, nodes)
	// assign took the lowest free GPUs; give the pods exactly the recorded ones.
	for r, ni := range nodes {
		n := s.nodes[ni]
		n.freeGPUs = n.freeGPUs | t.pods[r].gpus&^masks[r]
		n.freeGPUs &^= masks[r]
		t.pods[r].gpus = masks[r]
	}
	t.startedAt = startedAt
	t.team.unsort()
	s.touchUsage(t.typ.idx)
	return nil
}
