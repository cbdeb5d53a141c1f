package kube

import (
	"fmt"
	"strings"
)

// KeptOnDelete says what stays in Kubernetes when task is deleted through
// taskgov's API (engine.DeleteTask adds it to the task's message): a
// workload users applied is not taskgov's to delete, so its object stays,
// held (reconcile keeps it suspended or its pods gated, and its status
// annotation says why), and kubectl removes it. It is empty for API tasks,
// whose pods taskgov created and deletes, and for a workload whose object
// is already gone (a kubectl delete).
func (w *Workloads) KeptOnDelete(task string) string {
	k, ok := w.workload(task)
	if !ok || w.object(k) == nil {
		return ""
	}
	kind := strings.ToLower(k.kind.Name)
	return fmt.Sprintf("its Kubernetes %s %s/%s stays, held: taskgov did not create it; kubectl delete %s %s -n %s removes it",
		k.kind.Name, k.namespace, k.name, kind, k.name, k.namespace)
}
