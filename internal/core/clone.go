package core

import (
	"fmt"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Clone returns an independent scheduler in the same state: the same nodes
// (health, cordons), teams, policy, and tasks with their queue places,
// counters, checkpoints, holds, and running tasks on the same nodes and
// GPUs. A preview applies a change to the clone and runs a cycle, leaving
// the original untouched.
func (s *Scheduler) Clone() (*Scheduler, error) {
	c := model.Cluster{TopologyLevels: s.levels, Policy: s.policy, Teams: s.Teams()}
	for _, it := range s.types {
		c.InstanceTypes = append(c.InstanceTypes, it.spec)
	}
	for _, n := range s.nodes {
		c.Nodes = append(c.Nodes, n.spec)
	}
	out, err := New(c, s.seed)
	if err != nil {
		return nil, fmt.Errorf("cloning the scheduler: %w", err)
	}
	for _, n := range s.nodes {
		if !n.healthy {
			_ = out.SetNodeHealth(n.spec.Name, false, time.Time{})
		}
	}
	for _, t := range s.sortedTasks() {
		if err := out.Submit(t.spec, t.pendingSince); err != nil {
			return nil, fmt.Errorf("cloning task %s: %w", t.spec.Name, err)
		}
		ct := out.tasks[t.spec.Name]
		ct.seq, ct.resumes, ct.retries, ct.notBefore = t.seq, t.resumes, t.retries, t.notBefore
		ct.startedAt, ct.checkpointAt, ct.pendingSince, ct.wait = t.startedAt, t.checkpointAt, t.pendingSince, t.wait
		ct.backfill, ct.priorityLost, ct.placed = t.backfill, t.priorityLost, t.placed
		switch t.state {
		case running:
			ct.pods = append([]placedPod(nil), t.pods...)
			out.reassign(ct) // exactly the same nodes and GPU indices
		case suspended:
			ct.state = suspended
		}
		if t.holds() {
			ct.typ.holder = ct
			ct.typ.held = append([]int32(nil), t.typ.held...)
			ct.typ.heldAt = t.typ.heldAt
			for _, ni := range ct.typ.held {
				out.nodes[ni].heldFor = ct
			}
		}
	}
	out.seq = s.seq
	out.placements = s.placements
	for i, n := range s.nodes {
		out.nodes[i].afterHold = n.afterHold // whatever order the tasks were restored in
	}
	for _, tm := range out.teams {
		// Submit queued every task; keep only the pending ones, as the
		// original's queue holds between cycles (a running task requeued
		// before the next sort must not appear twice).
		q := tm.pending[:0]
		for _, t := range tm.pending {
			if t.state == pending {
				q = append(q, t)
			} else {
				t.queued = false
			}
		}
		clear(tm.pending[len(q):])
		tm.pending = q
		tm.unsort()
	}
	out.evictions = append([]model.Preemption(nil), s.evictions...)
	out.limitsDirty = s.limitsDirty
	out.lazyWaiting = s.lazyWaiting
	return out, nil
}
