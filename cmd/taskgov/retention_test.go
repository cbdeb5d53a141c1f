package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// TestKubernetesPodRetention: with --pod-retention, a finished task's pod
// stays while its logs may be wanted and is deleted once the retention has
// passed; asking for its logs afterwards says why they are gone. The server
// runs as the manifest's service account, on kwok nodes.
func TestKubernetesPodRetention(t *testing.T) {
	kc := kubetest.Start(t)
	c := kc.Client
	kc.StartKwok(t, "../../deploy/kwok/stages.yaml")
	for _, n := range []string{"p5-0", "p5-1"} {
		kc.CreateNode(t, kubetest.GPUNode(n, "ml.p5.48xlarge", 8, nil, false))
	}
	kubeconfig, clusterYAML := shippedManifest(t, kc)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(clusterYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	const retention = 3 * time.Second
	addr, _ := startKubeServer(t, dir, cfg, kubeconfig, func(o *serverOptions) { o.podRetention = retention })
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	s := &serverProc{t: t, url: "http://" + addr, token: strings.TrimSpace(string(tok))}
	waitFor(t, 60*time.Second, func() bool {
		var out struct{ Nodes []apitypes.Node }
		_, _ = s.call("GET", "/api/v1/nodes", nil, &out)
		return len(out.Nodes) == 2 && out.Nodes[0].Healthy && out.Nodes[1].Healthy
	})
	body := map[string]any{"name": "brief", "team": "research", "instanceType": "ml.p5.48xlarge", "command": []string{"true"},
		"env": map[string]string{"KWOK_RUN_FOR": "1s"}}
	if code, err := s.call("POST", "/api/v1/tasks", body, nil); err != nil || code != 201 {
		t.Fatalf("submit: %d %v", code, err)
	}
	var finished time.Time
	waitFor(t, 30*time.Second, func() bool {
		var task apitypes.Task
		_, _ = s.call("GET", "/api/v1/tasks/brief", nil, &task)
		finished = time.Now()
		return task.State == "Succeeded"
	})
	if ps := taskPods(t, c, "brief"); len(ps) != 1 || ps[0].Status.Phase != corev1.PodSucceeded {
		t.Fatalf("right after the task succeeded its pod should still be there: %+v", ps)
	}
	waitFor(t, 30*time.Second, func() bool { return len(taskPods(t, c, "brief")) == 0 })
	if gone := time.Since(finished); gone < retention-time.Second {
		t.Fatalf("the pod was deleted %v after its task finished; the retention is %v", gone, retention)
	}
	var e struct{ Error struct{ Message, Fix string } }
	code, _ := s.call("GET", "/api/v1/tasks/brief/logs?rank=0", nil, &e)
	if code != 410 || !strings.Contains(e.Error.Message, "--pod-retention") || !strings.Contains(e.Error.Fix, "--pod-retention") {
		t.Fatalf("logs of a pruned pod: %d %+v", code, e)
	}
	t.Logf("logs of a pruned pod: %d %s (%s)", code, e.Error.Message, e.Error.Fix)
	var task apitypes.Task
	if _, _ = s.call("GET", "/api/v1/tasks/brief", nil, &task); task.State != "Succeeded" {
		t.Fatalf("deleting the finished pod changed the task: %s", task.State)
	}
}
