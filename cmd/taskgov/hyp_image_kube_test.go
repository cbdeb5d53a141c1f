package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// TestHypCreateImageOnKubernetes: the training guide's line without
// --command, verbatim, on a Kubernetes-executor server (the shipped
// manifest's RBAC and cluster file, a real API server): the job is
// accepted and its pod has the image and no command, so the image's
// entrypoint runs, as HyperPod's does.
func TestHypCreateImageOnKubernetes(t *testing.T) {
	kc := kubetest.Start(t)
	kc.CreateNode(t, kubetest.GPUNode("p5-0", "ml.p5.48xlarge", 8, nil, true))
	kubeconfig, clusterYAML := shippedManifest(t, kc)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(clusterYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _ := startKubeServer(t, dir, cfg, kubeconfig)
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	t.Setenv("TASKGOV_SERVER", "http://"+addr)
	t.Setenv("TASKGOV_TOKEN", strings.TrimSpace(string(tok)))
	t.Setenv("TASKGOV_CONFIG", filepath.Join(dir, "cli.yaml"))
	hypMode = true
	t.Cleanup(func() { hypMode = false })

	out, errs, code := cli(t, "create", "hyp-pytorch-job", "--job-name", "test-pytorch-job", "--image", "pytorch/pytorch:latest")
	if code != 0 || !strings.Contains(out, "Successfully submitted HyperPodPytorchJob 'test-pytorch-job'!") {
		t.Fatalf("the training guide's line: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	p := waitPods(t, kc.Client, "test-pytorch-job", boundLive(1))[0]
	if ct := p.Spec.Containers[0]; ct.Image != "pytorch/pytorch:latest" || len(ct.Command) != 0 || len(ct.Args) != 0 {
		t.Fatalf("pod %s: image %q command %q args %q; want the image with no command, so its entrypoint runs", p.Name, ct.Image, ct.Command, ct.Args)
	}
}
