package engine

import (
	"github.com/taskgov/taskgov/internal/model"
)

// goneActor is the actor of a delete made because the executor found the
// task's object gone at a start (executor.ErrGone).
const goneActor = "executor"

// deleteGone deletes a live task whose start the executor refused with
// executor.ErrGone (its Kubernetes object was deleted while no leader
// ran): the task is cancelled and marked deleted in the same write, as
// DeleteTask does, with an audit entry and an event naming why. The
// caller has already dropped the task's run. It reports whether it did.
func (e *Engine) deleteGone(task, why string, w *writes) bool {
	if e.records[task] == nil {
		return false
	}
	r, err := e.cancel(task, goneActor, e.now(), w)
	if err != nil {
		return false
	}
	r.DeletedAt = r.FinishedAt
	r.Message = "deleted: " + why
	e.persist(r, w)
	e.event(r, ActDelete, r.Message, w)
	a := model.AuditEntry{At: r.DeletedAt, Actor: goneActor, Action: "task." + ActDelete, Team: r.Team, Target: r.Name, Result: why}
	w.put(model.Write{Audit: &a})
	return true
}
