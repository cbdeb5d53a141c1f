package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
	"github.com/taskgov/taskgov/internal/testwait"
)

// waitExplained is waitFor whose failure says where things stood: explain
// is called once, when the bound has passed, and its text is the failure.
// A bound that fails under load then shows which step did not happen (the
// node change, the decision, the Job controller's pods, the kubelet's
// phase) instead of only "condition not met".
func waitExplained(t *testing.T, d time.Duration, cond func() bool, explain func() string) {
	t.Helper()
	if err := testwait.Until(d, 50*time.Millisecond, cond); err != nil {
		t.Fatalf("condition not met: %v; where things stood:\n%s", err, explain())
	}
}

// explainWorkload renders a governed object as its user and taskgov see it:
// the object's suspend flag and status annotation, its pods, its Events,
// the task taskgov keeps for it (state, reason, placement) and the nodes
// with the labels taskgov read from them.
func explainWorkload(t *testing.T, kc *kubetest.Cluster, dyn dynamic.Interface, s *serverProc, u *unstructured.Unstructured) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	cur := getObj(t, dyn, u)
	if cur == nil {
		return u.GetName() + " is gone"
	}
	suspend, _, _ := unstructured.NestedBool(cur.Object, "spec", "suspend")
	status, _, _ := unstructured.NestedMap(cur.Object, "status")
	fmt.Fprintf(&b, "%s %s: suspend=%v status=%v\n  annotation %s: %s\n", cur.GetKind(), cur.GetName(), suspend, status,
		kube.AnnStatus, cur.GetAnnotations()[kube.AnnStatus])
	b.WriteString(podsWide(podsOwnedBy(t, kc, cur)))
	evs, err := kc.Client.CoreV1().Events(cur.GetNamespace()).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + cur.GetName()})
	if err == nil {
		for _, e := range evs.Items {
			fmt.Fprintf(&b, "  event %s %s %s (%s): %s\n", e.LastTimestamp.UTC().Format("15:04:05"), e.Type, e.Reason, e.Source.Component, e.Message)
		}
	}
	task := cur.GetAnnotations()[kube.AnnTask]
	if task == "" {
		task = kube.TaskName(cur)
	}
	for _, path := range []string{"/api/v1/tasks/" + task, "/api/v1/tasks/" + task + "/events", "/api/v1/nodes"} {
		var raw json.RawMessage
		code, err := s.call("GET", path, nil, &raw)
		fmt.Fprintf(&b, "  GET %s: %d %v %s\n", path, code, err, raw)
	}
	return b.String()
}
