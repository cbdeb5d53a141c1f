package main

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// TestKubernetesNodeSelector: a Job whose pod template asks, as HyperPod
// users write it, for nodes whose deep health check passed
// (nodeSelector sagemaker.amazonaws.com/deep-health-check-status: Passed)
// is placed only on nodes with that label, although unlabelled nodes of
// its type are idle. While too few nodes carry it, the Job waits and says
// why, with the fix, in its status annotation and a Warning Event; when a
// node is labelled, it starts there. A Job without the selector takes the
// unlabelled node. Real kube-apiserver, Job controller, kwok nodes, the
// shipped admission policies and RBAC.
func TestKubernetesNodeSelector(t *testing.T) {
	kc, dyn := workloadCluster(t, true)
	c := kc.Client
	ctx := context.Background()
	// p5-0 and p5-1 never had a deep health check; p5-2 passed one.
	for i := range 3 {
		l := map[string]string{"topology.k8s.aws/network-node-layer-3": "nn-3-a"}
		if i == 2 {
			l[kube.LabelDeepHealth] = "Passed"
		}
		kc.CreateNode(t, kubetest.GPUNode("p5-"+string(rune('0'+i)), "ml.p5.48xlarge", 8, l, false))
	}
	s, _, _, _, _ := workloadServer(t, kc, workloadsCluster, 3)

	// 1. Two pods asking for checked nodes, with one checked node: waits,
	// and says why on the object; no pod is placed.
	checked := jobVariant(t, "checked", "training-priority", 2, nil)
	_ = unstructured.SetNestedStringMap(checked.Object, map[string]string{
		"node.kubernetes.io/instance-type": "ml.p5.48xlarge", kube.LabelDeepHealth: "Passed"}, "spec", "template", "spec", "nodeSelector")
	checked = create(t, dyn, checked)
	var why string
	waitFor(t, 30*time.Second, func() bool {
		why = getObj(t, dyn, checked).GetAnnotations()[kube.AnnStatus]
		return strings.Contains(why, "1 schedulable ml.p5.48xlarge nodes carry the labels its nodeSelector asks for ("+kube.LabelDeepHealth+"=Passed) and it needs 2")
	})
	t.Logf("status annotation while no second node passed: %s", why)
	waitFor(t, 10*time.Second, func() bool {
		evs, _ := c.CoreV1().Events("hyperpod-ns-research").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=checked"})
		for _, e := range evs.Items {
			if e.Type == corev1.EventTypeWarning && e.Reason == "NoMatchingNodes" && strings.Contains(e.Message, "kubectl label node") {
				t.Logf("Event on Job checked: %s %s: %s", e.Type, e.Reason, e.Message)
				return true
			}
		}
		return false
	})
	for _, p := range podsOwnedBy(t, kc, checked) {
		if p.Spec.NodeName != "" {
			t.Fatalf("pod %s was bound to %s while its Job waits", p.Name, p.Spec.NodeName)
		}
	}

	// 2. p5-1 passes its check: the Job starts on p5-1 and p5-2, never on
	// the idle, unchecked p5-0.
	if _, err := c.CoreV1().Nodes().Patch(ctx, "p5-1", types.MergePatchType, []byte(`{"metadata":{"labels":{"`+kube.LabelDeepHealth+`":"Passed"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	// First taskgov's own step: the node sync tells the core, which admits
	// the Job on the two checked nodes (its status annotation). A miss
	// here is taskgov's. Then the cluster's: the Job controller makes the
	// pods, taskgov places them, kwok runs them; under load the Job
	// controller and kwok are slow, so that wait is longer, and either
	// failure says where things stood.
	explain := func() string { return explainWorkload(t, kc, dyn, s, checked) }
	waitExplained(t, 60*time.Second, func() bool {
		st := getObj(t, dyn, checked).GetAnnotations()[kube.AnnStatus]
		return st == "Running: run 1 on p5-1, p5-2" || st == "Running: run 1 on p5-2, p5-1"
	}, explain)
	var ps []corev1.Pod
	waitExplained(t, 120*time.Second, func() bool {
		ps = podsOwnedBy(t, kc, checked)
		n := 0
		for _, p := range ps {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				n++
			}
		}
		return n == 2
	}, explain)
	for _, p := range ps {
		if p.Spec.NodeName != "p5-1" && p.Spec.NodeName != "p5-2" {
			t.Errorf("pod %s on %s, which did not pass the deep health check", p.Name, p.Spec.NodeName)
		}
	}
	t.Logf("kubectl get pods -o wide (Job checked, nodeSelector %s: Passed):\n%s", kube.LabelDeepHealth, podsWide(ps))

	// 3. A Job without the selector takes the unchecked node.
	plain := create(t, dyn, jobVariant(t, "plain", "training-priority", 1, nil))
	waitFor(t, 60*time.Second, func() bool {
		pp := podsOwnedBy(t, kc, plain)
		return len(pp) == 1 && pp[0].Status.Phase == corev1.PodRunning && pp[0].Spec.NodeName == "p5-0"
	})
}
