package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

func p5Node(name, l3 string, ready bool, extra map[string]string) *corev1.Node {
	labels := map[string]string{model.LabelLayer1: "nn1-a", model.LabelLayer2: "nn2-a", model.LabelLayer3: l3}
	for k, v := range extra {
		labels[k] = v
	}
	return kubetest.GPUNode(name, "ml.p5.48xlarge", 8, labels, ready)
}

// Nodes come from a real API server: instance type, topology, allocatable
// less what unmanaged pods request, and schedulability from Ready, cordon
// and HyperPod's health label; the core accepts them and places on them.
func TestNodeDiscovery(t *testing.T) {
	kc := kubetest.Start(t)
	c := kc.Client
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kc.CreateNode(t, p5Node("p5-0", "nn3-a", true, nil))
	cordoned := p5Node("p5-1", "nn3-a", true, nil)
	cordoned.Spec.Unschedulable = true
	kc.CreateNode(t, cordoned)
	kc.CreateNode(t, p5Node("p5-2", "nn3-b", true, map[string]string{LabelNodeHealth: "UnschedulablePendingReboot"}))
	kc.CreateNode(t, p5Node("p5-3", "nn3-b", false, nil))
	unlabelled := p5Node("mystery", "nn3-b", true, nil)
	delete(unlabelled.Labels, LabelInstanceType)
	kc.CreateNode(t, unlabelled)
	// A DaemonSet-like pod taskgov does not manage holds 1 GPU and 2 vCPU on p5-0.
	agent := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "gpu-agent", Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: "p5-0", Containers: []corev1.Container{{Name: "agent", Image: "agent",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{ResourceGPU: apiresource.MustParse("1"),
				corev1.ResourceCPU: apiresource.MustParse("2")}, Limits: corev1.ResourceList{ResourceGPU: apiresource.MustParse("1")}}}}}}
	if _, err := c.CoreV1().Pods("default").Create(ctx, agent, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	src := NewNodeSource(c, 0)
	if err := src.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var nodes []Observed
	var errs []error
	for {
		nodes, errs = src.Snapshot()
		if len(nodes) == 4 && nodes[0].Node.Allocatable.GPUs == 7 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("nodes never matched: %+v %v", nodes, errs)
		case <-src.Changed:
		case <-time.After(100 * time.Millisecond):
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "mystery") || !strings.Contains(errs[0].Error(), "kubectl label node mystery") {
		t.Fatalf("errors = %v, want one naming the unlabelled node and the fix", errs)
	}
	want := map[string]bool{"p5-0": true, "p5-1": false, "p5-2": false, "p5-3": false}
	for _, o := range nodes {
		n := o.Node
		if got := !n.Unschedulable && o.Healthy; got != want[n.Name] {
			t.Errorf("%s schedulable = %v, want %v", n.Name, got, want[n.Name])
		}
		if n.Labels[model.LabelLayer1] != "nn1-a" || n.Labels[model.LabelLayer3] == "" {
			t.Errorf("%s lost its topology labels: %v", n.Name, n.Labels)
		}
	}
	if nodes[1].Node.Unschedulable != true || !nodes[1].Healthy || nodes[3].Healthy {
		t.Errorf("cordon and health mixed up: %+v", nodes)
	}
	if a := *nodes[0].Node.Allocatable; a != (resource.Vector{GPUs: 7, MilliCPU: 189000, MemMiB: 2000 * 1024}) {
		t.Errorf("p5-0 allocatable = %+v, want 7 GPUs, 189 vCPU, 2000 GiB", a)
	}

	// The core takes them as they are.
	s, err := core.New(model.Cluster{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range nodes {
		if err := s.AddNode(o.Node); err != nil {
			t.Fatal(err)
		}
		if !o.Healthy {
			if err := s.SetNodeHealth(o.Node.Name, false, time.Time{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, ni := range s.Nodes() {
		if ni.Spec.Name == "p5-0" && (ni.GPUs != 7 || !ni.Schedulable) {
			t.Errorf("core sees p5-0 with %d GPUs, schedulable %v", ni.GPUs, ni.Schedulable)
		}
	}

	// A cordon made through the API reaches the snapshot.
	n0, err := c.CoreV1().Nodes().Get(ctx, "p5-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n0.Spec.Unschedulable = true
	if _, err := c.CoreV1().Nodes().Update(ctx, n0, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for {
		if nodes, _ = src.Snapshot(); nodes[0].Node.Unschedulable {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the cordon never reached the snapshot")
		case <-src.Changed:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func TestPodRequestsCountsInitContainersAndOverhead(t *testing.T) {
	req := func(cpu string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: apiresource.MustParse(cpu)}}
	}
	p := &corev1.Pod{Spec: corev1.PodSpec{
		Containers:     []corev1.Container{{Resources: req("1")}, {Resources: req("500m")}},
		InitContainers: []corev1.Container{{Resources: req("2")}},
		Overhead:       corev1.ResourceList{corev1.ResourceCPU: apiresource.MustParse("100m")}}}
	if got := PodRequests(p).MilliCPU; got != 2100 {
		t.Fatalf("requests = %dm, want 2100m (init container 2 > 1.5, plus 0.1 overhead)", got)
	}
}

// A node whose HyperPod deep health check is running or failed takes no new
// pods (as a cordon); one that passed, or never had one, does.
func TestDeepHealthCheckCordons(t *testing.T) {
	for label, cordoned := range map[string]bool{"": false, "Passed": false, "InProgress": true, "Failed": true} {
		n := &corev1.Node{}
		n.Name = "p5-0"
		n.Labels = map[string]string{LabelInstanceType: "ml.p5.48xlarge"}
		if label != "" {
			n.Labels[LabelDeepHealth] = label
		}
		o, err := NodeFromAPI(n, resource.Vector{})
		if err != nil {
			t.Fatal(err)
		}
		if o.Node.Unschedulable != cordoned {
			t.Errorf("deep health check %q: unschedulable %v, want %v", label, o.Node.Unschedulable, cordoned)
		}
	}
}
