package kube

import (
	"context"
	"errors"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/taskgov/taskgov/internal/model"
)

// workloadKeyPrefix starts the idempotency key of a workload's task: the
// rest is its object's UID. The API refuses such keys from clients.
const workloadKeyPrefix = model.WorkloadKeyPrefix

// WorkloadKey is the idempotency key a workload's task is submitted with:
// it names the object's UID, so that a task whose object is gone can be
// told (sweep), and a submission whose answer was lost is not made twice.
func WorkloadKey(u *unstructured.Unstructured) string {
	return workloadKeyPrefix + string(u.GetUID())
}

// IsWorkloadKey reports whether a task's idempotency key is a WorkloadKey.
func IsWorkloadKey(key string) bool { return strings.HasPrefix(key, workloadKeyPrefix) }

// IsWorkloadTask reports whether a task of this name, key, command and
// image is a workload's: its key is a WorkloadKey, or, for a task submitted
// before workload keys (eb235a7), it has no key, no command and no image
// (which a workload's task never has) and a name of TaskName's form (a
// hash of the UID at its end). The name's form keeps an API task of an
// older store, submitted before the API refused an empty command
// (model.ValidateRun), from being taken for a workload's and deleted.
func IsWorkloadTask(name, key string, command []string, image string) bool {
	return IsWorkloadKey(key) || key == "" && len(command) == 0 && image == "" && hasTaskNameForm(name)
}

// hasTaskNameForm reports whether name ends as TaskName's do: a dash and
// eight lowercase hex digits.
func hasTaskNameForm(name string) bool {
	i := len(name) - 9
	if i < 1 || name[i] != '-' {
		return false
	}
	for _, c := range name[i+1:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Sweep's retries of a failed delete: SweepRetryWait, then twice that
// each time up to SweepRetryMax, until the delete is done.
var (
	SweepRetryWait = time.Second
	SweepRetryMax  = 30 * time.Second
)

// sweep deletes the live tasks whose objects were deleted while no
// taskgov leader ran (a kubectl delete nobody saw): it lists every
// governed kind from the API server (not the informers' caches, which
// may lag a standby's takeover) and deletes, as a kubectl delete would
// (gone), each workload task whose object is not among them: by the UID
// its key names, or, for a task submitted before workload keys (no key),
// by its name, TaskName of its object, which hashes the UID. Only the
// leader submits workload tasks, and it sweeps before it reconciles, so
// no task can be newer than the lists. A list that fails skips the sweep
// (nothing is deleted on partial knowledge); it is logged. A delete that
// fails (the store could not be written) is logged and tried again in the
// background (retrySweep) until it is done or the leadership ends; until
// then a start of the task finds its object gone and deletes it
// (executor.ErrGone).
func (w *Workloads) sweep(ctx context.Context) {
	tasks := w.gov.WorkloadTasks()
	if len(tasks) == 0 {
		return
	}
	exists, names := map[types.UID]bool{}, map[string]bool{}
	for _, k := range w.kinds {
		list, err := w.dyn.Resource(k.GVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			w.Log.Warn("kubernetes: cannot list workloads to find tasks whose objects are gone; not swept", "kind", k.Name, "err", err)
			return
		}
		for i := range list.Items {
			exists[list.Items[i].GetUID()] = true
			names[TaskName(&list.Items[i])] = true
		}
	}
	var failed []string
	for task, key := range tasks {
		if IsWorkloadKey(key) && exists[types.UID(strings.TrimPrefix(key, workloadKeyPrefix))] || !IsWorkloadKey(key) && names[task] {
			continue
		}
		if !w.sweepDelete(ctx, task) {
			failed = append(failed, task)
		}
	}
	if len(failed) > 0 {
		go w.retrySweep(ctx, failed)
	}
}

// sweepDelete deletes the task of a gone object and logs the outcome; a
// task already gone counts as deleted.
func (w *Workloads) sweepDelete(ctx context.Context, task string) bool {
	if err := w.gov.Delete(ctx, task); err != nil && !errors.Is(err, model.ErrNotFound) {
		w.Log.Warn("kubernetes: cannot delete the task of an object deleted while no leader ran; trying again", "task", task, "err", err)
		return false
	}
	w.Log.Info("kubernetes: deleted the task of an object deleted while no taskgov leader ran", "task", task)
	return true
}

// retrySweep tries the sweep's failed deletes again, SweepRetryWait apart
// and twice that each time up to SweepRetryMax, until each is done or its
// task is no longer live (deleted at its start, or by a user), or ctx ends
// (the leadership is lost: the next leader sweeps).
func (w *Workloads) retrySweep(ctx context.Context, tasks []string) {
	wait := SweepRetryWait
	for len(tasks) > 0 {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, SweepRetryMax)
		live := w.gov.WorkloadTasks()
		var again []string
		for _, task := range tasks {
			if _, ok := live[task]; ok && !w.sweepDelete(ctx, task) {
				again = append(again, task)
			}
		}
		tasks = again
	}
}
