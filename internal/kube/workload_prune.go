package kube

import "k8s.io/apimachinery/pkg/types"

// What the workload controller keeps per object (Workloads.byTask, uids,
// rejected, warned, statusAt, retry) is dropped when the object is deleted
// and its run is over (gone), and the waiting-only part when its task has
// ended (reconcile), so that a long-lived controller holds no more than the
// objects the cluster holds.

// ended reports whether a task state is final.
func ended(state string) bool {
	return state == "Succeeded" || state == "Failed" || state == "Cancelled"
}

// forgetObject drops what is kept about an object while it waits (refusals,
// warnings, status writes). The caller holds w.mu.
func (w *Workloads) forgetObject(uid types.UID) {
	delete(w.rejected, uid)
	delete(w.warned, uid)
	delete(w.statusAt, uid)
	delete(w.retry, uid)
	delete(w.seenClass, uid)
}

// forgetTask drops everything kept about a deleted object whose run is
// over. The caller holds w.mu.
func (w *Workloads) forgetTask(task string) {
	if uid, ok := w.uids[task]; ok {
		w.forgetObject(uid)
	}
	delete(w.byTask, task)
	delete(w.uids, task)
}
