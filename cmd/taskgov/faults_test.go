package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const faultCluster = `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 2}]
teams: [{name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}]
`

// TestStorageFaultsAndShutdown runs real server processes into storage
// faults: a full disk (a small tmpfs), the database file removed, the
// database corrupted; then a SIGTERM with a task that ignores it.
func TestStorageFaultsAndShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real server processes")
	}
	bin := buildBinary(t)
	t.Run("DiskFull", func(t *testing.T) { diskFull(t, bin) })
	t.Run("DatabaseRemoved", func(t *testing.T) { databaseRemoved(t, bin) })
	t.Run("DatabaseCorrupted", func(t *testing.T) { databaseCorrupted(t, bin) })
	t.Run("BoundedShutdown", func(t *testing.T) { boundedShutdown(t, bin) })
}

func faultServer(t *testing.T, bin, dir string, args ...string) *serverProc {
	cfg := filepath.Join(t.TempDir(), "cluster.yaml")
	_ = os.WriteFile(cfg, []byte(faultCluster), 0o644)
	return startServer(t, bin, dir, anyPort, append([]string{"--config", cfg}, args...)...)
}

// raw sends a request and returns the status, a header and the body.
func (s *serverProc) raw(method, path string, body any, header string) (int, string, string) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.url+path, rd)
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get(header), string(b)
}

func job(name string) map[string]any {
	return map[string]any{"name": name, "team": "alpha", "instanceType": "ml.p5.48xlarge", "command": []string{"true"}}
}

// exitOf waits for the server process to exit on its own and returns its
// exit code.
func exitOf(t *testing.T, s *serverProc, within time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(within):
		_ = s.cmd.Process.Kill()
		<-done
		t.Fatalf("the server did not exit within %s", within)
	}
	return -1
}

// diskFull: with the data directory's file system full, writes answer 503
// with Retry-After and /readyz says why; once space is freed the server is
// ready again by itself and takes writes, with nothing acknowledged lost.
func diskFull(t *testing.T, bin string) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root or CAP_SYS_ADMIN): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	s := faultServer(t, bin, dir)
	defer s.stop()
	if code, _, b := s.raw("POST", "/api/v1/tasks", job("before"), ""); code != 201 {
		t.Fatalf("submit before: %d %s", code, b)
	}
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	var code int
	var retry, body string
	for i := 0; i < 200 && code != 503; i++ {
		code, retry, body = s.raw("POST", "/api/v1/tasks", job("full-"+strconv.Itoa(i)), "Retry-After")
		if code != 201 && code != 503 {
			t.Fatalf("a write on a full disk: %d %s", code, body)
		}
	}
	if code != 503 || retry == "" || !strings.Contains(body, "retry") {
		t.Fatalf("a write on a full disk: %d Retry-After %q %s", code, retry, body)
	}
	rc, _, rb := s.raw("GET", "/readyz", nil, "")
	if rc != 503 || !strings.Contains(rb, "disk full") {
		t.Fatalf("readyz on a full disk: %d %s", rc, rb)
	}
	// Alive (a restart would not free space), but not ok, saying why.
	if hc, _, hb := s.raw("GET", "/healthz", nil, ""); hc != 200 || !strings.Contains(hb, `"degraded"`) || !strings.Contains(hb, "disk full") {
		t.Fatalf("healthz on a full disk: %d %s", hc, hb)
	}
	_ = os.Remove(filler)
	waitFor(t, 10*time.Second, func() bool { c, _, _ := s.raw("GET", "/readyz", nil, ""); return c == 200 })
	if hc, _, hb := s.raw("GET", "/healthz", nil, ""); hc != 200 || !strings.Contains(hb, `"ok"`) {
		t.Fatalf("healthz once space was freed: %d %s", hc, hb)
	}
	if code, _, b := s.raw("POST", "/api/v1/tasks", job("after"), ""); code != 201 {
		t.Fatalf("submit after space was freed: %d %s", code, b)
	}
	if code, _, b := s.raw("GET", "/api/v1/tasks/before", nil, ""); code != 200 {
		t.Fatalf("the task acknowledged before: %d %s", code, b)
	}
	_, _, metrics := s.raw("GET", "/metrics", nil, "")
	if !strings.Contains(metrics, `taskgov_store_errors_total{kind="transient"}`) || strings.Contains(metrics, `taskgov_store_errors_total{kind="transient"} 0`) ||
		!strings.Contains(metrics, "taskgov_engine_up 1") {
		t.Fatalf("metrics after a full disk:\n%s", grepLines(metrics, "taskgov_store_errors_total", "taskgov_engine_up"))
	}
}

// databaseRemoved: the database files removed under a running server: it
// acknowledges no more writes, exits 1 saying what to do, and a restart on
// that data directory refuses to start empty.
func databaseRemoved(t *testing.T, bin string) {
	dir := t.TempDir()
	s := faultServer(t, bin, dir)
	if code, _, b := s.raw("POST", "/api/v1/tasks", job("kept"), ""); code != 201 {
		t.Fatalf("submit: %d %s", code, b)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(filepath.Join(dir, "taskgov.db"+suffix))
	}
	acked := 0
	for i := 0; i < 20; i++ {
		if code, _, _ := s.raw("POST", "/api/v1/tasks", job("lost-"+strconv.Itoa(i)), ""); code == 201 {
			acked++
		}
	}
	if acked > 0 {
		t.Fatalf("%d writes acknowledged after the database file was removed", acked)
	}
	if code := exitOf(t, s, 10*time.Second); code == 0 {
		t.Fatal("the server exited 0 after losing its database")
	}
	log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
	if !strings.Contains(string(log), "removed or replaced") || !strings.Contains(string(log), "restore") {
		t.Fatalf("the log does not say what happened and what to do:\n%s", log)
	}
	cfg := filepath.Join(t.TempDir(), "cluster.yaml")
	_ = os.WriteFile(cfg, []byte(faultCluster), 0o644)
	out, err := exec.Command(bin, "server", "--config", cfg, "--data-dir", dir, "--listen", anyPort).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no taskgov.db") || !strings.Contains(string(out), "Restore") {
		t.Fatalf("a restart on a data directory without its database: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "taskgov.db")); err == nil {
		t.Fatal("the refused restart created an empty database")
	}
}

// databaseCorrupted: the database's header overwritten under a running
// server: the probe finds it, and the server exits 1 saying what to do.
func databaseCorrupted(t *testing.T, bin string) {
	dir := t.TempDir()
	s := faultServer(t, bin, dir)
	if code, _, b := s.raw("POST", "/api/v1/tasks", job("one"), ""); code != 201 {
		t.Fatalf("submit: %d %s", code, b)
	}
	f, err := os.OpenFile(filepath.Join(dir, "taskgov.db"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteAt(bytes.Repeat([]byte("garbage!"), 512), 0)
	f.Close()
	for i := 0; i < 10; i++ {
		if code, _, _ := s.raw("POST", "/api/v1/tasks", job("after-"+strconv.Itoa(i)), ""); code == 201 {
			t.Fatal("a write was acknowledged on a corrupt database")
		}
	}
	if code := exitOf(t, s, 10*time.Second); code == 0 {
		t.Fatal("the server exited 0 on a corrupt database")
	}
	log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
	if !strings.Contains(string(log), "corrupt") || !strings.Contains(string(log), "backup") {
		t.Fatalf("the log does not say what happened and what to do:\n%s", log)
	}
}

// boundedShutdown: SIGTERM with a running task that ignores SIGTERM: the
// server exits 0 within --shutdown-grace (plus a little), and no process of
// the task is left.
func boundedShutdown(t *testing.T, bin string) {
	dir := t.TempDir()
	s := faultServer(t, bin, dir, "--shutdown-grace", "3s")
	stubborn := map[string]any{"name": "stubborn", "team": "alpha", "instanceType": "ml.p5.48xlarge",
		"command": []string{"sh", "-c", "trap '' TERM; sleep 600 & wait; sleep 600"}}
	if code, _, b := s.raw("POST", "/api/v1/tasks", stubborn, ""); code != 201 {
		t.Fatalf("submit: %d %s", code, b)
	}
	var task taskJSON
	waitFor(t, 10*time.Second, func() bool {
		_, _ = s.call("GET", "/api/v1/tasks/stubborn", nil, &task)
		return task.State == "Running"
	})
	time.Sleep(300 * time.Millisecond) // let the pod's shell start its sleep
	if len(processesOf(dir)) == 0 {
		t.Fatal("the task's processes cannot be found by their TASKGOV_DATA_DIR marker")
	}
	start := time.Now()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	code := exitOf(t, s, 15*time.Second)
	took := time.Since(start)
	if code != 0 || took > 5*time.Second {
		t.Fatalf("SIGTERM with --shutdown-grace 3s: exit %d after %s", code, took)
	}
	// Every process of the task's group was sent SIGKILL before the server
	// exited; on a loaded machine the kernel may take a moment to finish
	// them off, so allow that moment, not more.
	var left []string
	for end := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if left = processesOf(dir); len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	if len(left) > 0 {
		t.Fatalf("processes left 3 s after the shutdown: %v", left)
	}
}

// processesOf lists processes whose environment names the data directory
// (the local executor marks every pod with TASKGOV_DATA_DIR).
func processesOf(dir string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if bytes.Contains(env, []byte("TASKGOV_DATA_DIR="+dir+"\x00")) {
			out = append(out, filepath.Base(filepath.Dir(p)))
		}
	}
	return out
}

func grepLines(s string, subs ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, sub := range subs {
			if strings.Contains(l, sub) {
				out = append(out, l)
			}
		}
	}
	return strings.Join(out, "\n")
}
