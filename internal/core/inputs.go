package core

import (
	"fmt"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Submit queues a task. It refuses bad specs with a FieldError naming the
// field and the fix, and a live name with ErrConflict. A zero SubmitTime is
// set to now; a given one (a replayed or restored task) keeps its place.
func (s *Scheduler) Submit(spec model.TaskSpec, now time.Time) error {
	spec = spec.WithDefaults()
	err := model.ValidateTask(spec, s.catalog, func(n string) bool { _, ok := s.teamIdx[n]; return ok }, s.policy,
		func(it string) int { return len(s.types[s.typeIdx[it]].nodes) }, s.levels)
	if err != nil {
		return err
	}
	if t, dup := s.tasks[spec.Name]; dup {
		return model.CheckNameReuse(spec.Name, spec.Team, &model.PriorUse{Team: t.spec.Team, Live: true})
	}
	if spec.SubmitTime.IsZero() {
		spec.SubmitTime = now
	}
	it := s.types[s.typeIdx[spec.InstanceType]]
	pod := model.PodVector(spec.PerNode, it.spec)
	s.seq++
	t := &task{spec: spec, seq: s.seq, team: s.teams[s.teamIdx[spec.Team]], typ: it, rank: s.rankOf(spec.Priority),
		pod: pod, total: pod.Mul(int64(spec.Nodes)), pendingSince: now, reqLevel: s.levelOf(spec.RequiredTopology),
		sel: model.SelectorString(spec.NodeSelector)}
	s.tasks[spec.Name] = t
	s.enqueue(t)
	fileNew(t)
	s.touchAdded(t)
	return nil
}

func (s *Scheduler) enqueue(t *task) {
	t.state = pending
	tm := t.team
	if t.queued {
		// Its entry from before (admitted, then stopped before a full sort
		// dropped the entry) is valid again, in its place (queuekeep.go).
		s.repend(t)
		return
	}
	t.queued = true
	tm.pending = append(tm.pending, t)
	tm.tailOnly = tm.queueSorted || tm.tailOnly // only appended since the last sort
	tm.queueSorted = false
}

func (s *Scheduler) lookup(name string) (*task, error) {
	t, ok := s.tasks[name]
	if !ok {
		return nil, fmt.Errorf("task %q: %w", name, model.ErrNotFound)
	}
	return t, nil
}

// Complete records that a running task finished successfully and forgets it.
func (s *Scheduler) Complete(name string) error {
	t, err := s.lookup(name)
	if err != nil {
		return err
	}
	if t.state != running {
		return fmt.Errorf("task %q is not running, so it cannot complete: %w", name, model.ErrConflict)
	}
	s.forget(t)
	return nil
}

// Fail records that a running task failed. With auto-resume and retries left
// it is requeued in its place (and true is returned), to start again no
// sooner than model.RetryBackoff after now; otherwise it is forgotten.
func (s *Scheduler) Fail(name string, now time.Time) (requeued bool, err error) {
	t, err := s.lookup(name)
	if err != nil {
		return false, err
	}
	if t.state != running {
		return false, fmt.Errorf("task %q is not running, so it cannot fail: %w", name, model.ErrConflict)
	}
	if t.spec.AutoResume && t.retries < t.spec.MaxRetry {
		t.retries++
		t.notBefore = now.Add(model.RetryBackoff(t.retries)) // before requeue folds it (queuekeep.go)
		s.requeue(t, now)
		return true, nil
	}
	s.forget(t)
	return false, nil
}

// Cancel removes a pending or running task; the caller stops its pods.
func (s *Scheduler) Cancel(name string) error {
	t, err := s.lookup(name)
	if err != nil {
		return err
	}
	s.forget(t)
	return nil
}

// Checkpoint records that a task saved a checkpoint at time at. Work before it
// is no longer at risk when choosing preemption victims.
func (s *Scheduler) Checkpoint(name string, at time.Time) error {
	t, err := s.lookup(name)
	if err != nil {
		return err
	}
	if at.After(t.checkpointAt) {
		t.checkpointAt = at
		if t.state == running && t.typ.idx < len(s.unpaid) && s.unpaid[t.typ.idx] {
			s.touchType(t.typ.idx) // a cheaper victim may now pay for a waiting task
		}
	}
	return nil
}

// forget releases everything a task holds and drops it.
func (s *Scheduler) forget(t *task) {
	ran, was := t.state == running, t.state
	if ran {
		s.unassign(t)
	}
	s.releaseHold(t)
	t.state = gone
	switch was {
	case running: // its entry, if any, is stale already (queuekeep.go)
	case pending:
		t.team.leave(t)
	default:
		t.team.unsort()
	}
	delete(s.tasks, t.spec.Name)
	s.touchTask(t, ran)
}

// requeue stops a running task and returns it to its queue in its original
// place (its submit time is unchanged).
func (s *Scheduler) requeue(t *task, now time.Time) {
	s.unassign(t)
	t.resumes++
	t.pendingSince = now
	s.enqueue(t)
	s.touchUsage(t.typ.idx)
}

func (s *Scheduler) nodeByName(name string) (*node, error) {
	i, ok := s.nodeIdx[name]
	if !ok {
		return nil, fmt.Errorf("node %q: %w", name, model.ErrNotFound)
	}
	return s.nodes[i], nil
}

// Cordon stops (on) or resumes (off) new placements on a node; running tasks
// stay.
func (s *Scheduler) Cordon(name string, on bool) error {
	n, err := s.nodeByName(name)
	if err != nil {
		return err
	}
	n.spec.Unschedulable = on
	s.setSchedulable(n, n.healthy && !on)
	s.releaseHoldsOn(n)
	s.touchUsage(n.typ.idx)
	return nil
}

// SetNodeHealth marks a node healthy or not. A node that turns unhealthy loses
// its tasks: each is requeued in its place and reported by the next cycle
// with reason NodeLost.
func (s *Scheduler) SetNodeHealth(name string, healthy bool, now time.Time) error {
	n, err := s.nodeByName(name)
	if err != nil {
		return err
	}
	n.healthy = healthy
	if !healthy {
		s.evictFrom(n, now, model.NodeLost)
	}
	s.setSchedulable(n, healthy && !n.spec.Unschedulable)
	s.releaseHoldsOn(n)
	s.touchUsage(n.typ.idx)
	return nil
}

// evictFrom requeues every task with a pod on n, reporting reason.
func (s *Scheduler) evictFrom(n *node, now time.Time, reason model.PreemptReason) {
	var victims []*task
	for _, tm := range s.teams {
		for _, t := range tm.run[n.typ.idx] {
			for _, p := range t.pods {
				if p.node == n.idx {
					victims = append(victims, t)
					break
				}
			}
		}
	}
	sortBySeq(victims)
	for _, t := range victims {
		s.evictions = append(s.evictions, model.Preemption{Task: t.spec.Name, Team: t.spec.Team,
			Reason: reason, LostGPUSeconds: s.lostWork(t, now)})
		s.requeue(t, now)
	}
}
