package kube

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pinField is the node field place pins a pod to.
const pinField = "metadata.name"

// bind binds a placed (ungated, pinned) pod of task to node. The API server
// answers a refused bind with a conflict whatever the cause, so a refusal
// is told apart by reading the pod back (bindRefused).
func (w *Workloads) bind(ctx context.Context, p *corev1.Pod, node, task string) (placed bool, err error) {
	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID},
		Target: corev1.ObjectReference{Kind: "Node", Name: node}}
	err = w.client.CoreV1().Pods(p.Namespace).Bind(ctx, b, metav1.CreateOptions{})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		return w.bindRefused(ctx, p, node, task, err)
	}
	return false, fmt.Errorf("binding pod %s/%s to %s: %w", p.Namespace, p.Name, node, err)
}

// bindRefused decides what a refused bind means, from the pod as the API
// server has it now:
//   - bound to node (kube-scheduler bound it first, to the pinned node): placed;
//   - bound to another node (another binder raced the pin): it holds a node
//     the core did not give the task, so it is deleted, with its grace, and
//     logged; its owner's replacement arrives gated and is placed;
//   - gone (or replaced by a pod of the same name), or being deleted: not
//     placed, logged; the node stays free in the run for its replacement,
//     and a workload that is itself gone ends its task (gone);
//   - otherwise an error, so that reconcile tries again (assign binds a
//     placed pod whose bind failed again: unbound).
func (w *Workloads) bindRefused(ctx context.Context, p *corev1.Pod, node, task string, refusal error) (bool, error) {
	cur, err := w.client.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	pod := p.Namespace + "/" + p.Name
	switch {
	case apierrors.IsNotFound(err) || (err == nil && cur.UID != p.UID):
		w.Log.Info("kubernetes pod gone before taskgov bound it; its node stays free for a replacement", "pod", pod, "task", task, "node", node, "refusal", refusal.Error())
		return false, nil
	case err != nil:
		return false, fmt.Errorf("binding pod %s to %s: %w; reading it back: %w", pod, node, refusal, err)
	case cur.Spec.NodeName == node:
		return true, nil
	case cur.Spec.NodeName != "":
		w.Log.Warn("kubernetes pod bound to another node than taskgov placed it on; deleting it so that its replacement is placed", "pod", pod, "task", task, "node", node, "boundTo", cur.Spec.NodeName)
		if err := w.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &p.UID}}); err != nil && !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("deleting pod %s, bound to %s rather than %s: %w", pod, cur.Spec.NodeName, node, err)
		}
		return false, nil
	case cur.DeletionTimestamp != nil:
		w.Log.Info("kubernetes pod deleted before taskgov bound it; its node stays free for a replacement", "pod", pod, "task", task, "node", node, "refusal", refusal.Error())
		return false, nil
	}
	return false, fmt.Errorf("binding pod %s to %s refused: %w", pod, node, refusal)
}

// unbound reports whether p was placed for run of task (ungated, labelled
// and pinned) but is not bound: its bind failed and is to be tried again.
func unbound(p *corev1.Pod, task string, run int) bool {
	return p.Spec.NodeName == "" && p.DeletionTimestamp == nil && len(p.Spec.SchedulingGates) == 0 && !terminal(p) &&
		p.Labels[LabelTask] == task && p.Labels[LabelRun] == strconv.Itoa(run) && pinnedNode(p) != ""
}

// pinnedNode is the node place pinned p to, or "".
func pinnedNode(p *corev1.Pod) string {
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range t.MatchFields {
			if f.Key == pinField && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}
