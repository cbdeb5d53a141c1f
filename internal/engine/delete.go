package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// ActDelete is the audit and event name of DeleteTask.
const ActDelete = "delete"

// cancel stops a live task and records it cancelled (TaskAction's cancel):
// it returns the changed copy for the caller to persist.
func (e *Engine) cancel(name, actor string, now time.Time, w *writes) (*model.TaskRecord, error) {
	if err := e.sched.Cancel(name); err != nil {
		return nil, err
	}
	r := e.edit(name)
	if r.State == model.StateRunning {
		e.endRun(name, now, "cancelled", w)
	}
	e.stopRun(name, "cancelled", w)
	r.State, r.FinishedAt, r.Placement, r.Message = model.StateCancelled, now, nil, "cancelled by "+actor
	delete(e.records, name)
	return r, nil
}

// keeper is an executor some of whose tasks stand for objects taskgov did
// not create (Kubernetes workloads users applied): KeptOnDelete says what
// a delete leaves in place and how to remove it ("" when nothing stays).
type keeper interface{ KeptOnDelete(task string) string }

// DeleteTask deletes a name's tasks, as HyperPod's delete removes the one
// PyTorchJob of a name: the newest task, if live, is cancelled (as
// TaskAction's cancel) and marked deleted in the same write; a finished one
// is marked deleted, and so is every earlier task of the team's that reused
// the name (all or none).
// A deleted task is left out of task lists and answers not found, but its
// record, events, runs (usage reports) and audit entries stay, and its team
// may reuse its name. What the executor keeps (keeper) is added to the
// task's message, which the API's answer shows. Deleting a deleted task, or a name never used, is
// ErrNotFound; a store that cannot be read is ErrUnavailable, with nothing
// changed.
func (e *Engine) DeleteTask(ctx context.Context, actor, name string) (model.TaskRecord, error) {
	team := ""
	if r, ok := e.View().Record(name); ok {
		team = r.Team
	}
	a := auditTeam(actor, "task."+ActDelete, team, name)
	v, err := e.do(ctx, a, func(w *writes) (any, error) {
		now := e.now()
		ctx, cancel := readCtx()
		earlier, err := e.store.TasksNamed(ctx, name)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("reading the tasks named %q: %w: %w", name, ErrUnavailable, err)
		}
		var r *model.TaskRecord
		if e.records[name] != nil {
			var err error
			if r, err = e.cancel(name, actor, now, w); err != nil {
				return nil, err
			}
		} else {
			last, err := e.finishedRecord(name, w)
			if err != nil {
				return nil, err
			}
			r = &last
			a.Team = r.Team // the audit entry is made after this function returns
		}
		if r.Deleted() {
			return nil, fmt.Errorf("task %q: deleted at %s: %w", name, r.DeletedAt.UTC().Format(time.RFC3339), model.ErrNotFound)
		}
		r.DeletedAt = now
		if k, ok := e.exec.(keeper); ok {
			if kept := k.KeptOnDelete(name); kept != "" {
				r.Message = strings.TrimPrefix(r.Message+"; deleted: "+kept, "; ")
			}
		}
		e.persist(r, w)
		deleteEarlier(*r, earlier, w)
		e.event(r, ActDelete, "deleted by "+actor, w)
		return *r, nil
	})
	if err != nil {
		return model.TaskRecord{}, err
	}
	return v.(model.TaskRecord), nil
}

// deleteEarlier marks deleted, with r, each earlier finished task of r's team
// stored under r's name (a name reused without a delete), so that none is
// left listed once GET and DELETE of the name answer not found.
func deleteEarlier(r model.TaskRecord, named []model.TaskRecord, w *writes) {
	for _, old := range named {
		if old.Seq == r.Seq || old.Team != r.Team || old.Deleted() || !old.State.Terminal() {
			continue
		}
		old.DeletedAt = r.DeletedAt
		w.put(model.Write{UpdateTask: &old})
	}
}

// finishedRecord is the newest record of a name that is not live: this
// batch's own write of it if there is one (a task that finished in the same
// batch is not stored yet), else the store's.
func (e *Engine) finishedRecord(name string, w *writes) (model.TaskRecord, error) {
	for i := len(w.ws) - 1; i >= 0; i-- {
		if r := w.ws[i].UpdateTask; r != nil && r.Name == name {
			return *r, nil
		}
		if r := w.ws[i].InsertTask; r != nil && r.Name == name {
			return *r, nil
		}
	}
	ctx, cancel := readCtx()
	last, err := e.store.Task(ctx, name)
	cancel()
	switch {
	case errors.Is(err, model.ErrNotFound):
		return last, fmt.Errorf("task %q: %w", name, model.ErrNotFound)
	case err != nil:
		return last, fmt.Errorf("reading the task named %q: %w: %w", name, ErrUnavailable, err)
	}
	return last, nil
}
