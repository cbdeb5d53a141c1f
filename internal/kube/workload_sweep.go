package kube

import (
	"context"
	"strings"

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

// sweep deletes the live tasks whose objects were deleted while no
// taskgov leader ran (a kubectl delete nobody saw): it lists every
// governed kind from the API server (not the informers' caches, which
// may lag a standby's takeover) and deletes, as a kubectl delete would
// (gone), each workload task whose object's UID is not among them. Only
// the leader submits workload tasks, and it sweeps before it reconciles,
// so no task can be newer than the lists. A list that fails skips the
// sweep (nothing is deleted on partial knowledge); it is logged.
func (w *Workloads) sweep(ctx context.Context) {
	tasks := w.gov.WorkloadTasks()
	if len(tasks) == 0 {
		return
	}
	exists := map[types.UID]bool{}
	for _, k := range w.kinds {
		list, err := w.dyn.Resource(k.GVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			w.Log.Warn("kubernetes: cannot list workloads to find tasks whose objects are gone; not swept", "kind", k.Name, "err", err)
			return
		}
		for _, u := range list.Items {
			exists[u.GetUID()] = true
		}
	}
	for task, key := range tasks {
		if exists[types.UID(strings.TrimPrefix(key, workloadKeyPrefix))] {
			continue
		}
		if err := w.gov.Delete(ctx, task); err != nil {
			w.Log.Warn("kubernetes: cannot delete the task of an object deleted while no leader ran", "task", task, "err", err)
			continue
		}
		w.Log.Info("kubernetes: deleted the task of an object deleted while no taskgov leader ran", "task", task)
	}
}
