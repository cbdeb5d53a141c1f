package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taskgov/taskgov/internal/kube/kubetest"
	"github.com/taskgov/taskgov/internal/testwait"
)

// replica is one `taskgov server --leader-elect` child process.
type replica struct {
	*serverProc
	addr string
}

func startReplica(t *testing.T, bin, dir, addr, cfg, kubeconfig string) *replica {
	t.Helper()
	cmd := exec.Command(bin, "server", "--data-dir", dir, "--listen", addr, "--config", cfg, "--executor", "kubernetes",
		"--kubeconfig", kubeconfig, "--image", "busybox", "--leader-elect", "--leader-elect-namespace", "taskgov-system",
		"--leader-elect-lease-duration", "3s")
	logf, err := os.CreateTemp(dir, "replica-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(addr, ":0") {
		addr = boundAddr(t, logf.Name(), 0, 30*time.Second)
	}
	r := &replica{serverProc: &serverProc{t: t, cmd: cmd, url: "http://" + addr}, addr: addr}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("replica %s log:\n%s", addr, b)
		}
	})
	r.waitStatus(t, "/healthz", 200, 30*time.Second)
	return r
}

// waitStatus polls path until it answers code, returning the body; within
// is stretched by the machine's load (testwait).
func (r *replica) waitStatus(t *testing.T, path string, code int, within time.Duration) map[string]string {
	t.Helper()
	var body map[string]string
	var last error
	err := testwait.Until(within, 50*time.Millisecond, func() bool {
		resp, err := http.Get(r.url + path)
		if last = err; err != nil {
			return false
		}
		defer resp.Body.Close()
		body = nil
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != code {
			last = fmt.Errorf("answered %d", resp.StatusCode)
		}
		return resp.StatusCode == code
	})
	if err != nil {
		t.Fatalf("%s%s did not answer %d: %v (last: %v)", r.url, path, code, err, last)
	}
	return body
}

// TestKubernetesLeaderFailover runs two replicas with leader election on a
// Lease, as the shipped Deployment does, under the manifest's RBAC. The
// standby forwards API calls to the leader; when the leader is killed
// (SIGKILL, so it releases nothing) the standby takes the Lease once it
// lapses, adopts the running gang without restarting it, and decides from
// then on.
func TestKubernetesLeaderFailover(t *testing.T) {
	kc := kubetest.Start(t)
	c := kc.Client
	kc.StartKwok(t, "../../deploy/kwok/stages.yaml")
	for _, n := range []string{"p5-0", "p5-1", "p5-2"} {
		kc.CreateNode(t, kubetest.GPUNode(n, "ml.p5.48xlarge", 8, nil, false)) // kwok makes them Ready
	}
	kubeconfig, clusterYAML := shippedManifest(t, kc)
	bin := buildBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	clusterYAML = strings.Replace(clusterYAML, "count: 2", "count: 3", 1)
	if err := os.WriteFile(cfg, []byte(clusterYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	a := startReplica(t, bin, dir, anyPort, cfg, kubeconfig)
	a.waitStatus(t, "/readyz", 200, 30*time.Second)
	b := startReplica(t, bin, dir, anyPort, cfg, kubeconfig)
	// The standby is not ready from its start, and names the leader once it
	// has read the Lease (under load that came after its first answer, and
	// the test read "").
	var got map[string]string
	waitFor(t, 10*time.Second, func() bool {
		got = b.waitStatus(t, "/readyz", 503, 10*time.Second)
		return got["leader"] != ""
	})
	if got["leader"] != a.url {
		t.Fatalf("the standby names leader %q, want %s", got["leader"], a.url)
	}
	tok, err := os.ReadFile(filepath.Join(dir, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	a.token, b.token = strings.TrimSpace(string(tok)), strings.TrimSpace(string(tok))

	// A call to the standby is decided by the leader.
	gang := map[string]any{"name": "gang", "team": "research", "instanceType": "ml.p5.48xlarge", "nodes": 2, "command": []string{"sleep", "600"}}
	if code, err := b.call("POST", "/api/v1/tasks", gang, nil); err != nil || code != 201 {
		t.Fatalf("submit through the standby: %d %v", code, err)
	}
	before := waitPods(t, c, "gang", boundLive(2))

	// The leader dies without a word; the standby waits out the Lease.
	killed := time.Now()
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = a.cmd.Wait()
	b.waitStatus(t, "/readyz", 200, 30*time.Second)
	t.Logf("failover: the standby was ready %.1f s after the leader was killed (Lease 3 s)", time.Since(killed).Seconds())
	lease, err := c.CoordinationV1().Leases("taskgov-system").Get(context.Background(), LeaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := lease.Spec.HolderIdentity; h == nil || *h != b.url {
		t.Fatalf("Lease holder %v, want %s", lease.Spec.HolderIdentity, b.url)
	}
	var task taskJSON
	if code, err := b.call("GET", "/api/v1/tasks/gang", nil, &task); err != nil || code != 200 || task.State != "Running" || task.Resumes != 0 {
		t.Fatalf("the gang after failover: %d %v %+v", code, err, task)
	}
	time.Sleep(300 * time.Millisecond)
	after := taskPods(t, c, "gang")
	if len(after) != 2 || after[0].UID != before[0].UID && after[0].UID != before[1].UID || after[0].DeletionTimestamp != nil {
		t.Fatalf("the gang's pods changed in the failover: %+v", after)
	}

	// The new leader decides: a new job is placed on the free node.
	one := map[string]any{"name": "one", "team": "research", "instanceType": "ml.p5.48xlarge", "command": []string{"true"}}
	if code, err := b.call("POST", "/api/v1/tasks", one, nil); err != nil || code != 201 {
		t.Fatalf("submit to the new leader: %d %v", code, err)
	}
	p := waitPods(t, c, "one", boundLive(1))[0]
	for _, g := range after {
		if g.Spec.NodeName == p.Spec.NodeName {
			t.Fatalf("one was placed on %s, which the adopted gang holds", p.Spec.NodeName)
		}
	}
	finishPod(t, c, p, corev1.PodSucceeded, 0)
	for _, g := range after {
		finishPod(t, c, g, corev1.PodSucceeded, 0)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, _ = b.call("GET", "/api/v1/tasks/gang", nil, &task)
		if task.State == "Succeeded" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the adopted gang never finished: %+v", task)
		}
	}
}
