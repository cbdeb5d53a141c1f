package kube

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Labels and annotations users put on manifests (Kueue's names, which
// HyperPod's CLI templates write), and the ones taskgov writes back.
const (
	LabelQueueName     = "kueue.x-k8s.io/queue-name"
	LabelPriorityClass = "kueue.x-k8s.io/priority-class"
	AnnRequiredTopo    = "kueue.x-k8s.io/podset-required-topology"
	AnnPreferredTopo   = "kueue.x-k8s.io/podset-preferred-topology"
	// LabelDeepHealth is the nodeSelector key HyperPod users set, to
	// "Passed", when a job needs nodes that passed a deep health check.
	LabelDeepHealth = "sagemaker.amazonaws.com/deep-health-check-status"
	// GateAdmission is the scheduling gate that holds a governed
	// workload's pods until taskgov admits it and picks their nodes.
	GateAdmission = "taskgov.io/admission"
	// AnnStatus carries taskgov's view of the workload (state, queue
	// position, wait reason and fix) for kubectl describe.
	AnnStatus = "taskgov.io/status"
	// AnnTask names the taskgov task that governs the workload.
	AnnTask = "taskgov.io/task"
)

// Kind is one workload kind taskgov governs: where its pod templates are,
// whether it can be suspended, and how it says it has finished.
type Kind struct {
	Name string
	GVR  schema.GroupVersionResource
	// SuspendPath is the bool field that suspends the workload; nil when
	// the kind has none and its pods are held by the scheduling gate alone.
	SuspendPath []string
	podSets     func(u *unstructured.Unstructured) ([]PodSet, error)
	// done and failed are the condition types that end the workload.
	done, failed []string
}

// PodSet is a group of identical pods of a workload.
type PodSet struct {
	Name     string
	Count    int
	Template corev1.PodTemplateSpec
}

// Kinds are the workload kinds taskgov governs, in the order it watches them.
var Kinds = []*Kind{
	{Name: "Job", GVR: schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"},
		SuspendPath: []string{"spec", "suspend"}, podSets: jobPodSets, done: []string{"Complete"}, failed: []string{"Failed"}},
	{Name: "PyTorchJob", GVR: schema.GroupVersionResource{Group: "kubeflow.org", Version: "v1", Resource: "pytorchjobs"},
		SuspendPath: []string{"spec", "runPolicy", "suspend"}, podSets: pytorchPodSets, done: []string{"Succeeded"}, failed: []string{"Failed"}},
	{Name: "JobSet", GVR: schema.GroupVersionResource{Group: "jobset.x-k8s.io", Version: "v1alpha2", Resource: "jobsets"},
		SuspendPath: []string{"spec", "suspend"}, podSets: jobSetPodSets, done: []string{"Completed"}, failed: []string{"Failed"}},
	{Name: "HyperPodPyTorchJob", GVR: schema.GroupVersionResource{Group: "sagemaker.amazonaws.com", Version: "v1", Resource: "hyperpodpytorchjobs"},
		podSets: hyperPodPodSets, done: []string{"Completed", "Succeeded"}, failed: []string{"Failed"}},
}

// KindOf returns the kind of a governed object by its resource.
func KindOf(gvr schema.GroupVersionResource) *Kind {
	for _, k := range Kinds {
		if k.GVR == gvr {
			return k
		}
	}
	return nil
}

// PodSets returns the workload's pod groups.
func (k *Kind) PodSets(u *unstructured.Unstructured) ([]PodSet, error) { return k.podSets(u) }

// Suspended reports whether the workload is suspended (false for kinds
// without suspend).
func (k *Kind) Suspended(u *unstructured.Unstructured) bool {
	if k.SuspendPath == nil {
		return false
	}
	v, _, _ := unstructured.NestedBool(u.Object, k.SuspendPath...)
	return v
}

// SuspendPatch is the merge patch that sets the workload's suspend field.
func (k *Kind) SuspendPatch(suspend bool) []byte {
	s := fmt.Sprintf("%t", suspend)
	for i := len(k.SuspendPath) - 1; i >= 0; i-- {
		s = fmt.Sprintf("{%q:%s}", k.SuspendPath[i], s)
	}
	return []byte(s)
}

// Finished reports whether the workload's own status says it ended, and
// if so whether it failed and why.
func (k *Kind) Finished(u *unstructured.Unstructured) (done, failed bool, reason string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m == nil || m["status"] != "True" {
			continue
		}
		t, _ := m["type"].(string)
		msg, _ := m["message"].(string)
		if r, _ := m["reason"].(string); r != "" {
			msg = strings.TrimSpace(r + ": " + msg)
		}
		if contains(k.failed, t) {
			return true, true, msg
		}
		if contains(k.done, t) {
			return true, false, msg
		}
	}
	return false, false, ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// template decodes the pod template at path.
func template(u *unstructured.Unstructured, m map[string]any, path ...string) (corev1.PodTemplateSpec, error) {
	var t corev1.PodTemplateSpec
	raw, ok, err := unstructured.NestedMap(m, path...)
	if err != nil || !ok {
		return t, fmt.Errorf("%s %s/%s has no pod template at %s", u.GetKind(), u.GetNamespace(), u.GetName(), strings.Join(path, "."))
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &t); err != nil {
		return t, fmt.Errorf("%s %s/%s: pod template at %s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), strings.Join(path, "."), err)
	}
	return t, nil
}

// count reads an optional integer field, defaulting to def.
func count(m map[string]any, def int64, path ...string) int64 {
	if v, ok, _ := unstructured.NestedInt64(m, path...); ok {
		return v
	}
	if f, ok, _ := unstructured.NestedFloat64(m, path...); ok {
		return int64(f)
	}
	return def
}

// jobPodSets: parallelism pods (default 1), at most completions when set.
func jobPodSets(u *unstructured.Unstructured) ([]PodSet, error) {
	t, err := template(u, u.Object, "spec", "template")
	if err != nil {
		return nil, err
	}
	n := count(u.Object, 1, "spec", "parallelism")
	if c := count(u.Object, -1, "spec", "completions"); c >= 0 && c < n {
		n = c
	}
	return []PodSet{{Name: "main", Count: int(n), Template: t}}, nil
}

// pytorchPodSets: one set per replica type, Master first.
func pytorchPodSets(u *unstructured.Unstructured) ([]PodSet, error) {
	specs, _, _ := unstructured.NestedMap(u.Object, "spec", "pytorchReplicaSpecs")
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == "Master") != (names[j] == "Master") {
			return names[i] == "Master"
		}
		return names[i] < names[j]
	})
	var out []PodSet
	for _, n := range names {
		m, _ := specs[n].(map[string]any)
		t, err := template(u, m, "template")
		if err != nil {
			return nil, err
		}
		out = append(out, PodSet{Name: n, Count: int(count(m, 1, "replicas")), Template: t})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("PyTorchJob %s/%s has no spec.pytorchReplicaSpecs", u.GetNamespace(), u.GetName())
	}
	return out, nil
}

// jobSetPodSets: per replicated job, replicas times the job's parallelism.
func jobSetPodSets(u *unstructured.Unstructured) ([]PodSet, error) {
	rjs, _, _ := unstructured.NestedSlice(u.Object, "spec", "replicatedJobs")
	var out []PodSet
	for i, r := range rjs {
		m, _ := r.(map[string]any)
		t, err := template(u, m, "template", "spec", "template")
		if err != nil {
			return nil, err
		}
		name, _ := m["name"].(string)
		if name == "" {
			name = fmt.Sprint(i)
		}
		out = append(out, PodSet{Name: name, Count: int(count(m, 1, "replicas") * count(m, 1, "template", "spec", "parallelism")), Template: t})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("JobSet %s/%s has no spec.replicatedJobs", u.GetNamespace(), u.GetName())
	}
	return out, nil
}

// hyperPodPodSets: one set per entry of spec.replicaSpecs.
func hyperPodPodSets(u *unstructured.Unstructured) ([]PodSet, error) {
	rs, _, _ := unstructured.NestedSlice(u.Object, "spec", "replicaSpecs")
	var out []PodSet
	for i, r := range rs {
		m, _ := r.(map[string]any)
		t, err := template(u, m, "template")
		if err != nil {
			return nil, err
		}
		name, _ := m["name"].(string)
		if name == "" {
			name = fmt.Sprint(i)
		}
		out = append(out, PodSet{Name: name, Count: int(count(m, 1, "replicas")), Template: t})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("HyperPodPyTorchJob %s/%s has no spec.replicaSpecs", u.GetNamespace(), u.GetName())
	}
	return out, nil
}
