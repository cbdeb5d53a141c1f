package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/httpapi"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// TestKubernetesLogsInParts: a pod's 12 MiB log read through the server
// on the Kubernetes executor, from a kubelet the test plays behind a real
// API server: a plain GET sends the first 8 MiB, placed and marked
// truncated, without a size (the log has not been read to its end); the
// next offset sends the rest with the size; the client's TaskLogs puts the
// parts together byte for byte; a tail sends the last lines without
// placing them; an offset past the end is a 400 naming the offset. No
// response made the kubelet send the whole log beyond what it needed.
func TestKubernetesLogsInParts(t *testing.T) {
	kc := kubetest.Start(t)
	c := kc.Client
	kl := kubetest.StartKubelet(t)
	kc.CreateNode(t, kl.Serve(t, kubetest.GPUNode("p5-0", "ml.p5.48xlarge", 8, nil, true)))
	kubeconfig, clusterYAML := shippedManifest(t, kc)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(clusterYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _ := startKubeServer(t, dir, cfg, kubeconfig)
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	s := &serverProc{t: t, url: "http://" + addr, token: strings.TrimSpace(string(tok))}
	if code, err := s.call("POST", "/api/v1/tasks", map[string]any{"name": "chatty", "team": "research", "instanceType": "ml.p5.48xlarge",
		"command": []string{"python3", "train.py"}}, nil); code != 201 {
		t.Fatalf("submit: %d %v", code, err)
	}
	pod := waitPods(t, c, "chatty", func(ps []corev1.Pod) bool { return len(ps) == 1 && ps[0].Spec.NodeName != "" })[0]
	var log bytes.Buffer
	for i := 0; log.Len() < 12<<20; i++ {
		fmt.Fprintf(&log, "step %d loss 0.%06d %s\n", i, i, strings.Repeat("x", 100))
	}
	kl.SetLog(pod.Name, log.Bytes())
	whole := append([]byte("=== taskgov: pod "+pod.Name+" on node p5-0 ===\n"), log.Bytes()...)

	get := func(query string) (int, http.Header, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", s.url+"/api/v1/tasks/chatty/logs"+query, nil)
		req.Header.Set("Authorization", "Bearer "+s.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, b
	}
	// The server's pod informer sees the binding in its own time: until
	// then the pod has no node to read a log from.
	waitFor(t, 30*time.Second, func() bool { _, _, b := get("?tail=1"); return bytes.HasSuffix(whole, b) && len(b) > 0 })
	kl.Took()
	code, h, first := get("")
	sent, _ := kl.Took()
	if code != 200 || !bytes.Equal(first, whole[:httpapi.MaxLogBytes]) || h.Get("Taskgov-Log-Start") != "0" ||
		h.Get("Taskgov-Log-End") != fmt.Sprint(httpapi.MaxLogBytes) || h.Get("Taskgov-Log-Truncated") != "true" || h.Get("Taskgov-Log-Size") != "" {
		t.Errorf("the first part: %d, %d bytes, headers %v", code, len(first), h)
	}
	if sent > httpapi.MaxLogBytes+1 {
		t.Errorf("the first part made the kubelet send %d bytes, want at most %d", sent, httpapi.MaxLogBytes+1)
	}
	code, h, rest := get("?offset=" + h.Get("Taskgov-Log-End"))
	if code != 200 || !bytes.Equal(rest, whole[httpapi.MaxLogBytes:]) || h.Get("Taskgov-Log-Truncated") != "" || h.Get("Taskgov-Log-Size") != fmt.Sprint(len(whole)) {
		t.Errorf("the rest: %d, %d bytes, headers %v; want %d bytes, not truncated, the size", code, len(rest), h, len(whole)-httpapi.MaxLogBytes)
	}
	all, err := client.New(s.url, s.token).TaskLogs(context.Background(), "chatty", 0)
	if err != nil || !bytes.Equal(all, whole) {
		t.Errorf("the client's TaskLogs: %d bytes, %v; want %d, byte for byte", len(all), err, len(whole))
	}
	kl.Took()
	code, h, tail := get("?tail=2")
	sent, _ = kl.Took()
	lines := strings.SplitAfter(strings.TrimSuffix(string(whole), "\n"), "\n")
	if want := strings.Join(lines[len(lines)-2:], "") + "\n"; code != 200 || string(tail) != want || h.Get("Taskgov-Log-Start") != "" ||
		h.Get("Taskgov-Log-Truncated") != "" || sent != int64(len(want)) {
		t.Errorf("?tail=2: %d %q, headers %v, kubelet sent %d; want %q, unplaced, only it sent", code, tail, h, sent, want)
	}
	if code, _, body := get(fmt.Sprintf("?offset=%d", len(whole)+1)); code != 400 || !strings.Contains(string(body), `"field":"offset"`) {
		t.Errorf("an offset past the end: %d %s", code, body)
	}
	finishPod(t, c, pod, corev1.PodSucceeded, 0)
}
