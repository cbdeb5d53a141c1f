package kube

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/taskgov/taskgov/internal/model"
)

// reprioritize follows a change of a governed object's label
// kueue.x-k8s.io/priority-class, which Kueue lets a user make after the
// workload was submitted (`kubectl label job J
// kueue.x-k8s.io/priority-class=high-priority --overwrite`: the Workload's
// priority follows). The live task's class is changed through the engine,
// as `taskgov patch-job priority` changes it, and a Normal PriorityChanged
// Event says so; a label naming no class of the policy gets a Warning
// Rejected Event and the task keeps its class.
//
// Only a change of the label is followed: the first value seen (at
// submission, or the first time after a restart) is recorded and changes
// nothing, so a class set through the API stays until the label changes.
// A removed label leaves the class as it is. It must be called only for an
// object whose task exists.
func (w *Workloads) reprioritize(ctx context.Context, u *unstructured.Unstructured, task string, st TaskStatus) error {
	if ended(st.State) {
		return nil
	}
	label, uid := u.GetLabels()[LabelPriorityClass], u.GetUID()
	w.mu.Lock()
	prev, seen := w.seenClass[uid]
	w.seenClass[uid] = label
	w.mu.Unlock()
	if !seen || prev == label || label == "" {
		return nil
	}
	want := w.Mapping.Class(label)
	if want == st.Priority {
		return nil
	}
	err := w.gov.SetPriority(ctx, task, want)
	switch {
	case err == nil:
		w.event(ctx, u, corev1.EventTypeNormal, "PriorityChanged",
			fmt.Sprintf("priority class %s -> %s, as its label %s now says", orNone(st.Priority), want, LabelPriorityClass))
	case isInvalid(err):
		w.event(ctx, u, corev1.EventTypeWarning, "Rejected",
			fmt.Sprintf("%v; the task keeps priority class %s", ManifestError(err), orNone(st.Priority)))
	case errors.Is(err, model.ErrNotFound):
		// It ended between Status and now: nothing to change.
	default:
		w.mu.Lock()
		w.seenClass[uid] = prev // not applied: the next reconcile tries again
		w.mu.Unlock()
		return err
	}
	return nil
}

// seeClass records the priority-class label ("" for none) an object was
// submitted with.
func (w *Workloads) seeClass(u *unstructured.Unstructured) {
	w.mu.Lock()
	w.seenClass[u.GetUID()] = u.GetLabels()[LabelPriorityClass]
	w.mu.Unlock()
}

func orNone(class string) string {
	if class == "" {
		return "(none)"
	}
	return class
}
