package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// Kueue's guides put the queue label on the workload only: an operator
// (Kubeflow's, JobSet's, HyperPod's) makes pods from its pod templates and
// does not copy the workload's labels onto them. The admission policy
// gates pods by that label, and taskgov places only gated pods, so such a
// workload's pods would start wherever kube-scheduler put them, or (with
// no scheduler) never. Before a workload of these kinds is submitted,
// taskgov therefore holds it (suspend, for kinds that have one) and then
// copies the queue label onto every pod template that lacks it; pods made
// from then on are gated. A Job's template is labelled by the admission
// policy at creation (and by label, for the team-namespace mode).

// templatePaths lists the paths of u's pod templates for the kinds whose
// pods an operator makes; nil for a Job.
func templatePaths(k *Kind, u *unstructured.Unstructured) [][]string {
	var out [][]string
	switch k.Name {
	case "PyTorchJob":
		specs, _, _ := unstructured.NestedMap(u.Object, "spec", "pytorchReplicaSpecs")
		for _, n := range sortedNames(specs) {
			out = append(out, []string{"spec", "pytorchReplicaSpecs", n, "template"})
		}
	case "JobSet":
		rjs, _, _ := unstructured.NestedSlice(u.Object, "spec", "replicatedJobs")
		for i := range rjs {
			out = append(out, []string{"spec", "replicatedJobs", strconv.Itoa(i), "template", "spec", "template"})
		}
	case "HyperPodPyTorchJob":
		rs, _, _ := unstructured.NestedSlice(u.Object, "spec", "replicaSpecs")
		for i := range rs {
			out = append(out, []string{"spec", "replicaSpecs", strconv.Itoa(i), "template"})
		}
	}
	return out
}

// jsonOp is one RFC 6902 operation.
type jsonOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// templateLabelOps are the operations that put the queue label q on every
// pod template of u that lacks it (none when all carry it).
func templateLabelOps(k *Kind, u *unstructured.Unstructured, q string) []jsonOp {
	var ops []jsonOp
	for _, p := range templatePaths(k, u) {
		t := nested(u.Object, p)
		if t == nil {
			continue // no template: mapping the workload says so
		}
		ptr := pointer(p)
		meta, _ := t["metadata"].(map[string]any)
		labels, _ := meta["labels"].(map[string]any)
		switch {
		case labels[LabelQueueName] == q:
		case meta == nil:
			ops = append(ops, jsonOp{"add", ptr + "/metadata", map[string]any{"labels": map[string]any{LabelQueueName: q}}})
		case labels == nil:
			ops = append(ops, jsonOp{"add", ptr + "/metadata/labels", map[string]any{LabelQueueName: q}})
		default:
			ops = append(ops, jsonOp{"add", ptr + "/metadata/labels/" + escape(LabelQueueName), q})
		}
	}
	return ops
}

// labelTemplates holds a not yet submitted workload of an operator's kind
// and labels its pod templates with its queue (see above). It reports
// whether it wrote; the write's own event continues the reconcile.
func (w *Workloads) labelTemplates(ctx context.Context, k wkey, u *unstructured.Unstructured) (bool, error) {
	q := u.GetLabels()[LabelQueueName]
	ops := templateLabelOps(k.kind, u, q)
	if q == "" || len(ops) == 0 {
		return false, nil
	}
	if k.kind.SuspendPath != nil && !k.kind.Suspended(u) {
		// JobSet's webhook allows template changes only while suspended.
		return true, w.patch(ctx, k, k.kind.SuspendPatch(true))
	}
	body, err := json.Marshal(append([]jsonOp{{"test", "/metadata/resourceVersion", u.GetResourceVersion()}}, ops...))
	if err != nil {
		return false, err
	}
	_, err = w.dyn.Resource(k.kind.GVR).Namespace(k.namespace).Patch(ctx, k.name, types.JSONPatchType, body, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		// Also when it changed since it was read (the test operation
		// fails): the retry reads it again.
		return true, fmt.Errorf("labelling the pod templates of %s with %s=%s: %w", k, LabelQueueName, q, err)
	}
	return true, nil
}

// nested returns the map at path in o, where a path element that is a
// number indexes a list; nil if there is none.
func nested(o map[string]any, path []string) map[string]any {
	var cur any = o
	for _, p := range path {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	m, _ := cur.(map[string]any)
	return m
}

// pointer renders a path as an RFC 6901 JSON pointer.
func pointer(path []string) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteString("/" + escape(p))
	}
	return b.String()
}

func escape(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1") }
