package core

import (
	"fmt"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// Suspend takes a task out of scheduling until Resume. A running task is
// stopped: the next decision reports it with reason Suspended, and the
// applier stops its pods.
func (s *Scheduler) Suspend(name string, now time.Time) error {
	t, err := s.lookup(name)
	if err != nil {
		return err
	}
	ran := t.state == running
	switch t.state {
	case suspended:
		return nil
	case running:
		s.evictions = append(s.evictions, model.Preemption{Task: name, Team: t.spec.Team, Reason: model.Suspended,
			LostGPUSeconds: s.lostWork(t, now)})
		s.unassign(t)
	}
	s.releaseHold(t)
	t.state = suspended
	t.team.unsort()
	s.touchTask(t, ran)
	return nil
}

// Resume returns a suspended task to its queue, in its original place.
func (s *Scheduler) Resume(name string, now time.Time) error {
	t, err := s.lookup(name)
	if err != nil {
		return err
	}
	if t.state != suspended {
		return fmt.Errorf("task %q is not suspended: %w", name, model.ErrConflict)
	}
	t.pendingSince = now
	s.enqueue(t)
	s.touchAdded(t)
	return nil
}

// SetPriority moves a task to another priority class. Its queue position
// follows; a running task keeps running.
func (s *Scheduler) SetPriority(name, class string) error {
	t, err := s.lookup(name)
	if err != nil {
		return err
	}
	if _, ok := s.policy.ClassWeight(class); !ok && class != "" {
		return &model.FieldError{Field: "priority", Problem: fmt.Sprintf("unknown priority class %q", class),
			Fix: "use one of the policy's priority classes"}
	}
	t.spec.Priority = class
	t.rank = s.rankOf(class)
	t.team.unsort()
	s.touchType(t.typ.idx)
	return nil
}

// Drain cordons a node and requeues every task on it (reason NodeDrained).
func (s *Scheduler) Drain(name string, now time.Time) error {
	if err := s.Cordon(name, true); err != nil {
		return err
	}
	s.evictFrom(s.nodes[s.nodeIdx[name]], now, model.NodeDrained)
	return nil
}

// TaskInfo is the core's view of one live task.
type TaskInfo struct {
	Spec         model.TaskSpec
	State        string // Pending, Running or Suspended
	Resumes      int
	Retries      int
	StartedAt    time.Time
	CheckpointAt time.Time
	// Wait is the reason its last try recorded. A walk that stopped early
	// leaves the tries of its tail for Waiting to make (stop.go): until the
	// list is read, such a task shows the reason of an earlier cycle.
	Wait model.WaitReason
}

// Task returns the core's view of a live task.
func (s *Scheduler) Task(name string) (TaskInfo, bool) {
	t, ok := s.tasks[name]
	if !ok {
		return TaskInfo{}, false
	}
	state := map[taskState]string{pending: "Pending", running: "Running", suspended: "Suspended"}[t.state]
	info := TaskInfo{Spec: t.spec, State: state, Resumes: int(t.resumes), Retries: t.retries, StartedAt: t.startedAt,
		CheckpointAt: t.checkpointAt, Wait: t.reason()}
	s.fillFit(t, &info.Wait, nil) // waitshown.go
	return info, true
}

// Restore re-creates a task after a restart, with its submission time,
// counters and last checkpoint, pending (or suspended). Tasks must be
// restored in their original submission order.
func (s *Scheduler) Restore(spec model.TaskSpec, resumes, retries int, checkpointAt time.Time, isSuspended bool, now time.Time) error {
	if err := s.Submit(spec, now); err != nil {
		return err
	}
	t := s.tasks[spec.Name]
	t.resumes, t.retries, t.checkpointAt = int32(resumes), retries, checkpointAt
	if isSuspended {
		t.state = suspended
		t.team.unsort()
	}
	return nil
}

// Nodes lists every node with its state and free capacity.
func (s *Scheduler) Nodes() []NodeInfo {
	out := make([]NodeInfo, len(s.nodes))
	for i, n := range s.nodes {
		out[i] = NodeInfo{Spec: n.spec, Healthy: n.healthy, Schedulable: n.schedulable,
			FreeGPUs: n.free.GPUs, GPUs: n.capacity.GPUs, Capacity: n.capacity, Free: n.free}
		if n.heldFor != nil {
			out[i].HeldFor = n.heldFor.spec.Name
		}
	}
	return out
}

// NodeInfo is one node's state.
type NodeInfo struct {
	Spec        model.Node
	Healthy     bool
	Schedulable bool
	GPUs        int64
	FreeGPUs    int64
	Capacity    resource.Vector // of the node
	Free        resource.Vector
	HeldFor     string
}

// Teams returns every team's settings, with defaults filled.
func (s *Scheduler) Teams() []model.Team {
	out := make([]model.Team, len(s.teams))
	for i, t := range s.teams {
		out[i] = t.spec
	}
	return out
}

// Levels returns the topology label keys in force.
func (s *Scheduler) Levels() []string { return s.levels }

// Interrupt requeues a running task in its place without counting a retry,
// as when the server shuts down or its pods were lost; it counts a resume.
func (s *Scheduler) Interrupt(name string, now time.Time) error {
	t, err := s.lookup(name)
	if err != nil {
		return err
	}
	if t.state != running {
		return fmt.Errorf("task %q is not running: %w", name, model.ErrConflict)
	}
	s.requeue(t, now)
	return nil
}

// NextWake is when a time-based rule next needs a cycle even without input;
// ok is false when none is pending.
func (s *Scheduler) NextWake() (at time.Time, ok bool) { return s.nextWake, s.nextWake.Before(never) }

// TasksTried counts the pending tasks tried by all full cycles so far: the
// part of a cycle's work that grows with the backlog.
func (s *Scheduler) TasksTried() uint64 { return s.tried }

// Dirty reports whether an input arrived since the last full cycle.
func (s *Scheduler) Dirty() bool { return s.dirty || len(s.evictions) > 0 }
