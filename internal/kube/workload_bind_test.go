package kube

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// syncBuffer is a log sink the API client's goroutines may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) take() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.b.String()
	s.b.Reset()
	return out
}

// A refused bind is told apart by reading the pod back (real
// kube-apiserver, which answers a conflict for each): a pod bound first to
// the pinned node is placed; one bound to another node is deleted and
// logged; one being deleted, or gone, is not placed (its node stays free)
// and is logged; a placed pod whose bind failed is recognised (unbound) for
// assign to bind again. Before, every conflict counted as placed, silently.
func TestBindRefusals(t *testing.T) {
	kc := kubetest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := kc.Client
	ns := "hyperpod-ns-research"
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"n0", "n1"} {
		kc.CreateNode(t, kubetest.GPUNode(n, "ml.p5.48xlarge", 8, nil, true))
	}
	logs := &syncBuffer{}
	w := &Workloads{client: c, Log: slog.New(slog.NewTextHandler(logs, nil))}
	gatedPod := func(name string, finalizer bool) *corev1.Pod {
		t.Helper()
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: corev1.PodSpec{SchedulingGates: []corev1.PodSchedulingGate{{Name: GateAdmission}},
				Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
		if finalizer {
			p.Finalizers = []string{"taskgov.io/test"}
		}
		made, err := c.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return made
	}
	get := func(name string) (*corev1.Pod, error) { return c.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{}) }
	// lift plays another binder: the gate lifted and the pod bound to node.
	lift := func(p *corev1.Pod, node string) {
		t.Helper()
		cur, _ := get(p.Name)
		cur.Spec.SchedulingGates = nil
		if _, err := c.CoreV1().Pods(ns).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if node != "" {
			b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: ns}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
			if err := c.CoreV1().Pods(ns).Bind(ctx, b, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(what string, placed bool, err error, want bool, log string) {
		t.Helper()
		got := logs.take()
		if err != nil || placed != want || !strings.Contains(got, log) {
			t.Errorf("%s: placed %v, err %v, log %q; want placed %v, no error, a log with %q", what, placed, err, got, want, log)
		}
	}

	// Placed as the core chose.
	p := gatedPod("plain", false)
	placed, err := w.place(ctx, p, "n0", "t", 0, 0)
	check("a gated pod", placed, err, true, "")
	if cur, _ := get("plain"); cur.Spec.NodeName != "n0" || pinnedNode(cur) != "n0" || gated(cur) {
		t.Errorf("a gated pod: bound to %q, pinned to %q, gated %v; want n0, n0, false", cur.Spec.NodeName, pinnedNode(cur), gated(cur))
	}

	// Bound first, to the node taskgov chose: placed.
	p = gatedPod("first", false)
	lift(p, "n1")
	placed, err = w.bind(ctx, p, "n1", "t")
	check("bound first to the same node", placed, err, true, "")

	// Bound to another node: deleted, logged.
	p = gatedPod("elsewhere", false)
	lift(p, "n1")
	placed, err = w.bind(ctx, p, "n0", "t")
	check("bound elsewhere", placed, err, false, "bound to another node")
	if cur, err := get("elsewhere"); err == nil && cur.DeletionTimestamp == nil {
		t.Errorf("the pod bound to %s rather than n0 was not deleted", cur.Spec.NodeName)
	}

	// Being deleted (a finalizer holds it): not placed, logged.
	p = gatedPod("dying", true)
	lift(p, "")
	if err := c.CoreV1().Pods(ns).Delete(ctx, "dying", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	placed, err = w.bind(ctx, p, "n0", "t")
	check("being deleted", placed, err, false, "deleted before taskgov bound it")
	if cur, _ := get("dying"); cur.Spec.NodeName != "" {
		t.Errorf("the pod being deleted was bound to %s", cur.Spec.NodeName)
	}
	cur, _ := get("dying")
	cur.Finalizers = nil
	_, _ = c.CoreV1().Pods(ns).Update(ctx, cur, metav1.UpdateOptions{})

	// Gone, or replaced by a pod of the same name: not placed, logged.
	p = gatedPod("gone", false)
	if err := c.CoreV1().Pods(ns).Delete(ctx, "gone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	placed, err = w.bind(ctx, p, "n0", "t")
	check("gone", placed, err, false, "gone before taskgov bound it")
	gatedPod("gone", false) // same name, another UID
	placed, err = w.bind(ctx, p, "n0", "t")
	check("replaced", placed, err, false, "gone before taskgov bound it")
	if cur, _ := get("gone"); cur.Spec.NodeName != "" {
		t.Errorf("the replacement was bound to %s for the pod it replaced", cur.Spec.NodeName)
	}

	// A placed pod whose bind failed (pinned, labelled, ungated, unbound)
	// is what assign binds again.
	p = gatedPod("retry", false)
	p.Labels = map[string]string{LabelTask: "t", LabelRun: "0"}
	p.Spec.SchedulingGates = nil
	p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: pinField, Operator: corev1.NodeSelectorOpIn, Values: []string{"n1"}}}}}}}}
	if p, err = c.CoreV1().Pods(ns).Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !unbound(p, "t", 0) || unbound(p, "t", 1) || unbound(p, "u", 0) {
		t.Errorf("unbound: %v for its run, %v for another run, %v for another task; want true, false, false", unbound(p, "t", 0), unbound(p, "t", 1), unbound(p, "u", 0))
	}
}
