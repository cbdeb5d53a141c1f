package kube

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// Labels and resource names taskgov reads from nodes and writes on objects.
const (
	LabelInstanceType = "node.kubernetes.io/instance-type"
	// LabelNodeHealth is HyperPod's health label; when present, only
	// "Schedulable" lets new pods land.
	LabelNodeHealth = "sagemaker.amazonaws.com/node-health-status"
	ResourceGPU     = corev1.ResourceName("nvidia.com/gpu")
	// LabelManagedBy marks the namespaces and pods taskgov owns.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	ManagedByValue = "taskgov"
)

// Healthy reports whether n can run pods: Ready, and not marked otherwise
// by HyperPod's health label. An unhealthy node's tasks are requeued.
func Healthy(n *corev1.Node) bool {
	if h, ok := n.Labels[LabelNodeHealth]; ok && h != "Schedulable" {
		return false
	}
	return KubeletReady(n)
}

// KubeletReady reports whether n's kubelet reports Ready, so that it can
// carry out a graceful pod deletion.
func KubeletReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Schedulable reports whether new pods may land on n: healthy and not
// cordoned.
func Schedulable(n *corev1.Node) bool { return !n.Spec.Unschedulable && Healthy(n) }

// Observed is a Kubernetes node as taskgov sees it. Node.Unschedulable
// means cordoned; Healthy is kept apart because losing health requeues the
// node's tasks and a cordon does not.
type Observed struct {
	Node    model.Node
	Healthy bool
}

// NodeFromAPI converts a Kubernetes node. others is what pods taskgov does
// not manage (DaemonSets, system pods) request on it; it is subtracted from
// the node's allocatable. A node without an instance-type label is an error
// that says how to fix it.
func NodeFromAPI(n *corev1.Node, others resource.Vector) (Observed, error) {
	typ := n.Labels[LabelInstanceType]
	if typ == "" {
		return Observed{}, &model.FieldError{Field: "node " + n.Name, Problem: "has no " + LabelInstanceType + " label",
			Fix: fmt.Sprintf("label it: kubectl label node %s %s=<type>", n.Name, LabelInstanceType)}
	}
	// Every label but the instance type (a field of its own): the topology
	// labels place the node in the tree, and a workload's nodeSelector
	// (the deep health check's, or any) is matched against the rest.
	labels := make(map[string]string, len(n.Labels))
	for k, v := range n.Labels {
		if k != LabelInstanceType {
			labels[k] = v
		}
	}
	alloc := Vector(n.Status.Allocatable).SubClamped(others)
	// A node whose deep health check has not passed (running, or failed)
	// takes no new pods, as a cordon; running ones stay.
	dhc, checked := n.Labels[LabelDeepHealth]
	cordoned := n.Spec.Unschedulable || (checked && dhc != "Passed")
	return Observed{Node: model.Node{Name: n.Name, InstanceType: typ, Labels: labels, Unschedulable: cordoned, Allocatable: &alloc},
		Healthy: Healthy(n)}, nil
}

// Vector reads GPUs, CPU and memory from a resource list.
func Vector(l corev1.ResourceList) resource.Vector {
	var v resource.Vector
	if q, ok := l[ResourceGPU]; ok {
		v.GPUs = q.Value()
	}
	if q, ok := l[corev1.ResourceCPU]; ok {
		v.MilliCPU = q.MilliValue()
	}
	if q, ok := l[corev1.ResourceMemory]; ok {
		v.MemMiB = q.Value() >> 20
	}
	return v
}

// PodRequests is what a pod holds on its node while it runs: the larger of
// its containers' summed requests and its largest init container, plus
// overhead, as the Kubernetes scheduler counts it.
func PodRequests(p *corev1.Pod) resource.Vector {
	var sum, initMax resource.Vector
	for _, c := range p.Spec.Containers {
		sum = sum.Add(Vector(c.Resources.Requests))
	}
	for _, c := range p.Spec.InitContainers {
		initMax = initMax.Max(Vector(c.Resources.Requests))
	}
	return sum.Max(initMax).Add(Vector(p.Spec.Overhead))
}

// sortedNames returns m's keys in order, for deterministic output.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
