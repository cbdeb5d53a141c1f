package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// A running workload deleted while taskgov is down (an upgrade, a
// failover) has its task deleted at the restart, as KUBERNETES.md says
// ("a leader's start ... deletes each live workload task whose object is
// not there"): it answers 404, and no pod of taskgov's runs for it.
// TestKubernetesWorkloads checks this for a pending Job only. Before
// eb235a7 the restarted run went to the pod executor (a busybox pod for
// the task); since, the restart starts the run again before the sweep,
// the start fails naming the gone object, and the task stays listed as
// Failed ("could not start") instead of deleted.
func TestKubernetesWorkloadDeletedWhileDown(t *testing.T) {
	kc, dyn := workloadCluster(t, false)
	for i := range 2 {
		kc.CreateNode(t, kubetest.GPUNode("p5-"+string(rune('0'+i)), "ml.p5.48xlarge", 8, domainLabels(i), false))
	}
	s, dir, cfg, kubeconfig, stop := workloadServer(t, kc, workloadsCluster, 2)
	job := create(t, dyn, jobVariant(t, "gone-while-down", "training-priority", 1, nil))
	task := kube.TaskName(job)
	waitFor(t, 30*time.Second, func() bool {
		var out struct{ State string }
		code, _ := s.call("GET", "/api/v1/tasks/"+task, nil, &out)
		return code == 200 && out.State == "Running"
	})
	stop()
	bg := metav1.DeletePropagationBackground
	if err := dyn.Resource(kube.Kinds[0].GVR).Namespace(job.GetNamespace()).Delete(context.Background(), job.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
		t.Fatal(err)
	}
	addr, _ := startKubeServer(t, dir, cfg, kubeconfig)
	s.url = "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	var code int
	var out struct{ State, Message string }
	for ; time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if code, _ = s.call("GET", "/api/v1/tasks/"+task, nil, &out); code == 404 {
			break
		}
	}
	if code != 404 {
		t.Errorf("30 s after the restart, the task of the Job deleted while taskgov was down answers %d, state %s (%s); want 404 (deleted)", code, out.State, out.Message)
	}
	pods, err := kc.Client.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{LabelSelector: kube.LabelTask + "=" + task})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		t.Errorf("pod %s/%s (image %s) runs for the task of the deleted Job", p.Namespace, p.Name, p.Spec.Containers[0].Image)
	}
}

// TestKubernetesPreKeyWorkloadDeletedWhileDown: a workload task submitted
// before workload keys (eb235a7) has no kubernetes.uid.<UID> key, so the
// leader's start-up sweep, which matched keys only, never deleted it, and
// a restarted run of it whose Job was deleted while taskgov was down ran
// as an API task (a busybox pod). The store is made as such a taskgov left
// it (real SQLite: the keys removed while the server is stopped); at the
// restart the task of the deleted Job is deleted, and the task of the Job
// that is still there is kept.
func TestKubernetesPreKeyWorkloadDeletedWhileDown(t *testing.T) {
	kc, dyn := workloadCluster(t, false)
	for i := range 2 {
		kc.CreateNode(t, kubetest.GPUNode("p5-"+string(rune('0'+i)), "ml.p5.48xlarge", 8, domainLabels(i), false))
	}
	s, dir, cfg, kubeconfig, stop := workloadServer(t, kc, workloadsCluster, 2)
	gone := create(t, dyn, jobVariant(t, "gone-pre-key", "training-priority", 1, nil))
	kept := create(t, dyn, jobVariant(t, "kept-pre-key", "training-priority", 1, nil))
	goneTask, keptTask := kube.TaskName(gone), kube.TaskName(kept)
	waitFor(t, 30*time.Second, func() bool {
		var out struct{ State string }
		code, _ := s.call("GET", "/api/v1/tasks/"+goneTask, nil, &out)
		return code == 200 && out.State == "Running"
	})
	// Both tasks are in the store before it stops (under load the second
	// Job's submission came after the stop: "keys removed from 1 tasks").
	waitFor(t, 30*time.Second, func() bool {
		code, _ := s.call("GET", "/api/v1/tasks/"+keptTask, nil, nil)
		return code == 200
	})
	stop()
	db, err := sql.Open("sqlite", filepath.Join(dir, "taskgov.db"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Exec(`UPDATE tasks SET spec = json_remove(spec, '$.idempotencyKey', '$.idempotencyDigest') WHERE name IN (?, ?)`, goneTask, keptTask)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Fatalf("keys removed from %d tasks, want 2", n)
	}
	db.Close()
	bg := metav1.DeletePropagationBackground
	if err := dyn.Resource(kube.Kinds[0].GVR).Namespace(gone.GetNamespace()).Delete(context.Background(), gone.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
		t.Fatal(err)
	}
	addr, _ := startKubeServer(t, dir, cfg, kubeconfig)
	s.url = "http://" + addr
	var code int
	var out struct{ State, Message, IdempotencyKey string }
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if code, _ = s.call("GET", "/api/v1/tasks/"+goneTask, nil, &out); code == 404 {
			break
		}
	}
	if code != 404 {
		t.Errorf("30 s after the restart, the keyless task of the Job deleted while taskgov was down answers %d, state %s (%s); want 404 (deleted)", code, out.State, out.Message)
	}
	if code, _ = s.call("GET", "/api/v1/tasks/"+keptTask, nil, &out); code != 200 || out.IdempotencyKey != "" {
		t.Errorf("the keyless task of the Job still there answers %d (key %q), want 200 and no key: %s", code, out.IdempotencyKey, out.Message)
	}
	pods, err := kc.Client.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{LabelSelector: kube.LabelTask + "=" + goneTask})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		t.Errorf("pod %s/%s (image %s) runs for the task of the deleted Job", p.Namespace, p.Name, p.Spec.Containers[0].Image)
	}
}
