package main

import (
	"errors"
	"time"

	"github.com/taskgov/taskgov/internal/executor"
)

// errDeposed is what a start gets once this replica no longer leads.
var errDeposed = errors.New("this replica is no longer the leader; the new leader starts the task")

// fencedExecutor acts only while leading() holds: once the replica is
// deposed it starts no pod and stops none, even for decisions it committed
// before (the new leader owns them now).
type fencedExecutor struct {
	executor.Executor
	leading func() bool
}

func (f fencedExecutor) Start(spec executor.StartSpec) error {
	if !f.leading() {
		return errDeposed
	}
	return f.Executor.Start(spec)
}

func (f fencedExecutor) Stop(task string, grace time.Duration) {
	if f.leading() {
		f.Executor.Stop(task, grace)
	}
}

// fencedAdopter keeps an Adopter's adoption (Kubernetes) behind the fence.
type fencedAdopter struct {
	fencedExecutor
	a executor.Adopter
}

func (f fencedAdopter) Alive(task string, run int, pods []executor.Pod) bool {
	return f.a.Alive(task, run, pods)
}

func (f fencedAdopter) RemoveOthers(keep map[string]int) int {
	if !f.leading() {
		return 0
	}
	return f.a.RemoveOthers(keep)
}

// fence wraps an executor so that it acts only while leading() holds.
func fence(e executor.Executor, leading func() bool) executor.Executor {
	f := fencedExecutor{Executor: e, leading: leading}
	if a, ok := e.(executor.Adopter); ok {
		return fencedAdopter{fencedExecutor: f, a: a}
	}
	return f
}
