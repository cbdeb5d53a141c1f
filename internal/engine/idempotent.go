package engine

import (
	"fmt"

	"github.com/taskgov/taskgov/internal/model"
)

// keyedTask is the task of spec's name and team that a submission with key
// made, or nil: the live task, this batch's own writes (not stored yet),
// then every stored task of the name, newest first, so that a retry finds
// its task even after the name was used again. It reads the store only
// when the team has used the name before; a store that cannot be read is
// ErrUnavailable (the caller writes nothing).
func (e *Engine) keyedTask(spec model.TaskSpec, key string, w *writes) (*model.TaskRecord, error) {
	if key == "" {
		return nil, nil
	}
	made := func(r *model.TaskRecord) bool { return r.IdempotencyKey == key && r.Team == spec.Team }
	if r := e.records[spec.Name]; r != nil && made(r) {
		return r, nil
	}
	for i := len(w.ws) - 1; i >= 0; i-- {
		r := w.ws[i].UpdateTask
		if r == nil {
			r = w.ws[i].InsertTask
		}
		if r != nil && r.Name == spec.Name && made(r) {
			return r, nil
		}
	}
	if !model.ValidName(spec.Name) {
		return nil, nil
	}
	ctx, cancel := readCtx()
	prior, err := e.store.PriorUse(ctx, spec.Name)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("reading earlier tasks named %q: %w: %w", spec.Name, ErrUnavailable, err)
	}
	if prior == nil || prior.Team != spec.Team {
		return nil, nil // a name another team holds keeps its 409, whatever the key
	}
	ctx, cancel = readCtx()
	all, err := e.store.TasksNamed(ctx, spec.Name)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("reading the tasks named %q: %w: %w", spec.Name, ErrUnavailable, err)
	}
	for i := range all {
		if made(&all[i]) {
			return &all[i], nil
		}
	}
	return nil, nil
}
