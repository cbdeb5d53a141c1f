package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/taskgov/taskgov/internal/kube/kubetest"
	"github.com/taskgov/taskgov/internal/testwait"
)

// lockedBuffer is a bytes.Buffer a command writes while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestGetLogFollowAcrossAServerRestart: `get-log --follow` over a pod on
// the Kubernetes executor whose log grows, while the server stops and
// starts again on its address: the CLI says it is asking again, then
// prints what was written meanwhile and on, every line once and in order,
// and ends when the pod does.
func TestGetLogFollowAcrossAServerRestart(t *testing.T) {
	kc := kubetest.Start(t)
	kl := kubetest.StartKubelet(t)
	kc.CreateNode(t, kl.Serve(t, kubetest.GPUNode("p5-0", "ml.p5.48xlarge", 8, nil, true)))
	kubeconfig, clusterYAML := shippedManifest(t, kc)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(clusterYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, stop := startKubeServer(t, dir, cfg, kubeconfig)
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	s := &serverProc{t: t, url: "http://" + addr, token: strings.TrimSpace(string(tok))}
	t.Setenv("TASKGOV_SERVER", s.url)
	t.Setenv("TASKGOV_TOKEN", s.token)
	t.Setenv("TASKGOV_CONFIG", filepath.Join(dir, "cli.yaml"))
	if code, err := s.call("POST", "/api/v1/tasks", map[string]any{"name": "chatty", "team": "research", "instanceType": "ml.p5.48xlarge",
		"command": []string{"python3", "train.py"}}, nil); code != 201 {
		t.Fatalf("submit: %d %v", code, err)
	}
	pod := waitPods(t, kc.Client, "chatty", func(ps []corev1.Pod) bool { return len(ps) == 1 && ps[0].Spec.NodeName != "" })[0]
	want := "=== taskgov: pod " + pod.Name + " on node p5-0 ===\n"
	step := 0
	write := func(n int) {
		var b strings.Builder
		for range n {
			fmt.Fprintf(&b, "step %d loss 0.%06d %s\n", step, step, strings.Repeat("x", 100))
			step++
		}
		kl.AppendLog(pod.Name, []byte(b.String()), time.Millisecond)
		want += b.String()
	}
	write(2000)
	// The server's pod informer sees the binding in its own time: until
	// then the pod has no node to read a log from.
	waitFor(t, 30*time.Second, func() bool {
		out, _, code := cli(t, "get-log", "--job-name", "chatty")
		return code == 0 && out == want
	})

	var out, errs lockedBuffer
	root := newRootCmd()
	root.SetOut(&out)
	root.SetErr(&errs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	root.SetContext(ctx)
	done := make(chan error, 1)
	go func() { done <- execute(root, []string{"get-log", "--job-name", "chatty", "--follow"}) }()
	shows := func(what string) {
		t.Helper()
		testwait.For(t, 60*time.Second, 50*time.Millisecond, what, func() bool { return out.String() == want })
	}
	shows("the first lines")
	write(1000)
	shows("lines written while following")
	stop()
	write(1000)
	testwait.For(t, 60*time.Second, 50*time.Millisecond, "the CLI saying it asks again", func() bool {
		return strings.Contains(errs.String(), "asking again")
	})
	startKubeServer(t, dir, cfg, kubeconfig, func(o *serverOptions) { o.listen = addr })
	shows("lines written while the server was down")
	write(1000)
	shows("lines written after the restart")
	finishPod(t, kc.Client, pod, corev1.PodSucceeded, 0)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("get-log --follow: %v", err)
		}
	case <-time.After(testwait.Scale(60 * time.Second)):
		t.Fatal("get-log --follow did not end with the pod")
	}
	if got := out.String(); got != want {
		t.Errorf("get-log --follow printed %d bytes; want the %d of the log, each once", len(got), len(want))
	}
}
