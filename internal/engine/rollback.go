package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/model"
)

// A failed commit must leave memory as the store has it (persist, then
// apply). The engine does not copy the core before each batch (a copy of a
// large cluster per batch would cost more than the batch); it rereads the
// core's state from the store instead, the way recovery does at start, but
// keeps the running pods running: tasks the store says run are adopted
// where they are. What the store does not hold (the executor's view of
// running pods, admissions waiting for their nodes) is put back from an
// undo log kept during the batch.

// undoLog holds, for one batch, the executor-side state as it was before.
type undoLog struct {
	runs     map[string]*run // a copy of each run touched (nil: it did not exist)
	deferred []model.Admission
	waiting  []model.Waiting // the list readers saw (waitindex.go)
	fresh    bool            // whether it was built after the last cycle
	health   map[string]bool // node health, which the store does not hold
}

// begin starts a batch's log. Call with e.mu held.
func (u *undoLog) begin(e *Engine) {
	u.runs = map[string]*run{}
	u.deferred = slices.Clone(e.deferred)
	u.waiting, u.fresh = e.waiting, e.waitFresh
}

// saveRun records a run's state before the batch changes it; call before
// every change of e.runs[task] or of its fields.
func (u *undoLog) saveRun(e *Engine, task string) {
	if u.runs == nil {
		return // outside a batch (recovery)
	}
	if _, ok := u.runs[task]; ok {
		return
	}
	if rn := e.runs[task]; rn != nil {
		cp := *rn
		cp.exited = maps.Clone(rn.exited)
		u.runs[task] = &cp
	} else {
		u.runs[task] = nil
	}
}

// rollback undoes the current batch. Call with e.mu held.
func (e *Engine) rollback(ctx context.Context) error {
	for task, rn := range e.undo.runs {
		if rn == nil {
			delete(e.runs, task)
		} else {
			e.runs[task] = rn
		}
	}
	e.undo.runs = map[string]*run{}
	e.deferred = e.undo.deferred
	// The list as before the batch, if it was built; else the next read
	// builds it from the rebuilt core, whose tasks carry no wait reason
	// until its first cycle.
	e.waiting, e.waitFresh = e.undo.waiting, e.undo.fresh
	return e.rebuild(ctx)
}

// rebuild replaces the core, the live records, the cluster and the sequence
// with what the store holds. Tasks stored as running are adopted where they
// were placed; node health is carried over from the old core.
func (e *Engine) rebuild(ctx context.Context) error {
	cluster, ok, err := e.store.Cluster(ctx)
	if err != nil {
		return storeReadError{fmt.Errorf("reading the stored cluster: %w", err)}
	}
	if !ok {
		return fmt.Errorf("no stored cluster")
	}
	sched, err := core.New(cluster, 0)
	if err != nil {
		return err
	}
	sched.SetLazyWaiting(true)
	live, err := e.store.LiveTasks(ctx)
	if err != nil {
		return storeReadError{fmt.Errorf("reading tasks: %w", err)}
	}
	seq, err := e.store.MaxSeq(ctx)
	if err != nil {
		return storeReadError{err}
	}
	now := e.now()
	records := make(map[string]*model.TaskRecord, len(live))
	for i := range live {
		r := new(model.TaskRecord) // its own allocation: one long-lived task must not keep the whole slice
		*r = live[i]
		switch r.State {
		case model.StateRunning:
			err = sched.Adopt(r.Spec, r.Resumes, r.Retries, r.CheckpointAt, r.StartedAt, r.Placement, now)
		default:
			err = sched.Restore(r.Spec, r.Resumes, r.Retries, r.CheckpointAt, r.State == model.StateSuspended, now)
		}
		if err != nil {
			return fmt.Errorf("task %s as stored: %w", r.Name, err)
		}
		records[r.Name] = r
	}
	for _, n := range e.sched.Nodes() {
		if !n.Healthy {
			if err := sched.SetNodeHealth(n.Spec.Name, false, now); err != nil {
				return err
			}
		}
	}
	e.sched, e.cluster, e.records, e.seq = sched, cluster, records, seq
	return nil
}
