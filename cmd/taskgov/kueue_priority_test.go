package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// kueueDocJob is a Job as Kueue's current guides write one: a generated
// name, the LocalQueue user-queue of the namespace default, a
// WorkloadPriorityClass label, and no suspend (Kueue's webhook suspends it);
// each pod takes a whole node's GPUs, so that two such Jobs cannot share
// the test's two nodes.
const kueueDocJob = `apiVersion: batch/v1
kind: Job
metadata:
  generateName: NAME-
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
    kueue.x-k8s.io/priority-class: low-priority
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: work
          image: registry.example/worker:1
          command: ["/bin/sh", "-c", "sleep 600"]
          resources:
            limits: {nvidia.com/gpu: "8"}
`

// TestKubernetesKueuePriorityLabelChange: Kueue lets a user change a
// workload's kueue.x-k8s.io/priority-class label after submitting it (its
// Workload's priority follows, and a pending workload raised above a
// running one preempts it). taskgov read the label only at submission, so
// `kubectl label job ... priority-class=high-priority --overwrite` changed
// nothing. Now the task's class follows the label (a PriorityChanged
// Event says so): the raised pending Job preempts the running one of its
// team, and a label naming no class is refused in an Event while the task
// keeps its class. Only a change of the label is followed: a class set
// through the API stays.
func TestKubernetesKueuePriorityLabelChange(t *testing.T) {
	kc, dyn := workloadCluster(t, true)
	for _, n := range []string{"p5-0", "p5-1"} {
		kc.CreateNode(t, kubetest.GPUNode(n, "ml.p5.48xlarge", 8, nil, false))
	}
	s, _, _, _, _ := workloadServer(t, kc, `
policy:
  taskPrioritization: TaskRanking
  preemption: Immediate
  priorityClasses: [{name: high, weight: 90}, {name: low, weight: 10}]
teams:
  - {name: user-queue, namespace: default, preemptTeamTasks: LowerPriority, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
`, 2)
	dir := t.TempDir()
	submit := func(name string) *unstructured.Unstructured {
		path := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(kueueDocJob, "NAME", name)), 0o644); err != nil {
			t.Fatal(err)
		}
		return apply(t, dyn, path)[0]
	}
	task := func(u *unstructured.Unstructured) apitypes.Task {
		var got apitypes.Task
		_, _ = s.call("GET", "/api/v1/tasks/"+kube.TaskName(u), nil, &got)
		return got
	}
	relabel := func(u *unstructured.Unstructured, class string) {
		patch := `{"metadata":{"labels":{"kueue.x-k8s.io/priority-class":"` + class + `"}}}`
		if _, err := dyn.Resource(kindNamed("Job").GVR).Namespace("default").Patch(context.Background(), u.GetName(), types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	events := func(u *unstructured.Unstructured, reason string) string {
		evs, _ := kc.Client.CoreV1().Events("default").List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + u.GetName()})
		var out []string
		for _, e := range evs.Items {
			if e.Reason == reason {
				out = append(out, e.Message)
			}
		}
		return strings.Join(out, "\n")
	}
	running := func(u *unstructured.Unstructured) bool {
		n := 0
		for _, p := range podsOwnedBy(t, kc, u) {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				n++
			}
		}
		return n == 2
	}

	first := submit("first")
	waitExplained(t, 60*time.Second, func() bool { return running(first) }, func() string { return explainWorkload(t, kc, dyn, s, first) })
	if p := task(first).Spec.Priority; p != "low" {
		t.Fatalf("the Job's task has priority class %q, want low (label low-priority)", p)
	}
	second := submit("second")
	waitFor(t, 30*time.Second, func() bool { return task(second).State == "Pending" })

	// Raised above the running Job: its class follows the label, and it
	// preempts the running one to run in the team's quota.
	relabel(second, "high-priority")
	waitExplained(t, 90*time.Second, func() bool { return task(second).Spec.Priority == "high" && running(second) },
		func() string { return explainWorkload(t, kc, dyn, s, second) })
	if e := events(second, "PriorityChanged"); !strings.Contains(e, "priority class low -> high") {
		t.Errorf("no PriorityChanged Event on the relabelled Job: %q", e)
	}
	if st := task(first).State; st == "Running" {
		t.Errorf("the low-priority Job still runs: %s", st)
	}

	// A label naming no class: refused on the object, the class kept.
	relabel(second, "urgent-priority")
	waitFor(t, 30*time.Second, func() bool { return events(second, "Rejected") != "" })
	if e := events(second, "Rejected"); !strings.Contains(e, "metadata.labels[kueue.x-k8s.io/priority-class]") || !strings.Contains(e, "keeps priority class high") {
		t.Errorf("Rejected Event: %q", e)
	}
	if p := task(second).Spec.Priority; p != "high" {
		t.Errorf("after an unknown class the task has class %q, want high", p)
	}

	// A class set through the API stays while the label does not change
	// (the controller resyncs every 10 s; it must not undo it).
	if code, err := s.call("POST", "/api/v1/tasks/"+kube.TaskName(second)+"/priority", map[string]string{"priority": "low"}, nil); err != nil || code != 200 {
		t.Fatalf("POST priority: %d %v", code, err)
	}
	time.Sleep(12 * time.Second)
	if p := task(second).Spec.Priority; p != "low" {
		t.Errorf("the class set through the API became %q, want low", p)
	}
}
