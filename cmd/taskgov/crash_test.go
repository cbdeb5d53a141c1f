package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/testwait"
)

// serverProc is a taskgov server running as a real child process.
type serverProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	url   string
	token string
}

func startServer(t *testing.T, bin, dir, addr string, args ...string) *serverProc {
	t.Helper()
	// Tasks run as the test's user: the training script's python may live
	// where other users cannot reach (isolation_test.go covers --task-user).
	cmd := exec.Command(bin, append([]string{"server", "--data-dir", dir, "--listen", addr, "--task-user", "server"}, args...)...)
	logPath := filepath.Join(dir, "server.log")
	if _, err := os.Stat(dir); err != nil { // the server makes it: log beside
		logPath = filepath.Join(t.TempDir(), "server.log")
	}
	from := logSize(logPath)
	logf, _ := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(addr, ":0") {
		addr = boundAddr(t, logPath, from, 15*time.Second)
	}
	s := &serverProc{t: t, cmd: cmd, url: "http://" + addr}
	deadline := time.Now().Add(15 * time.Second)
	for {
		if resp, err := http.Get(s.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			t.Fatalf("server did not become ready:\n%s", log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	tok, err := os.ReadFile(filepath.Join(dir, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	s.token = strings.TrimSpace(string(tok))
	return s
}

func (s *serverProc) call(method, path string, body any, out any) (int, error) {
	return s.callWith(method, path, body, out, nil)
}

// callWith is call with extra request headers.
func (s *serverProc) callWith(method, path string, body any, out any, hdr http.Header) (int, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.url+path, rd)
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		_ = json.Unmarshal(b, out)
	}
	return resp.StatusCode, nil
}

type taskJSON struct {
	Name, State, Message string
	Resumes              int
	Seq                  int64
}

// TestCrashRecovery submits tasks from concurrent clients, kills the server
// with SIGKILL mid-stream, and restarts it: every acknowledged task is there
// exactly once, the crashed server's pods died with it, tasks that were
// running are requeued and run again, and the training script resumes from
// its checkpoint.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real server processes")
	}
	py, pyErr := exec.LookPath("python3")
	bin := buildBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	_ = os.WriteFile(cfg, []byte(`
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 4}]
teams: [{name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 4}]}]
`), 0o644)
	t0 := time.Now()
	phase := func(what string) { t.Logf("%6.2fs %s", time.Since(t0).Seconds(), what) }
	s := startServer(t, bin, dir, anyPort, "--config", cfg)
	phase("server started")

	script, _ := filepath.Abs("../../examples/train.py")
	if pyErr == nil {
		train := map[string]any{"name": "train", "team": "alpha", "instanceType": "ml.p5.48xlarge",
			"command": []string{py, script, "--steps", "400", "--step-seconds", "0.05", "--checkpoint-every", "5"}}
		if code, err := s.call("POST", "/api/v1/tasks", train, nil); err != nil || code != 201 {
			t.Fatalf("submit train: %d %v", code, err)
		}
		waitFor(t, 10*time.Second, func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, "tasks", "train", "logs", "rank-0.log"))
			return strings.Contains(string(b), "checkpoint saved at step 10")
		})
	}

	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for c := 0; c < 4; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("c%d-t%d", c, i)
				body := map[string]any{"name": name, "team": "alpha", "instanceType": "ml.p5.48xlarge",
					"perNode": map[string]int{"gpus": 1}, "command": []string{"sh", "-c", "echo $$ > \"$TASKGOV_CHECKPOINT_DIR/pid\"; sleep 60 & echo $! > \"$TASKGOV_CHECKPOINT_DIR/child\"; wait"}}
				code, err := s.call("POST", "/api/v1/tasks", body, nil)
				if err != nil {
					return // the server is gone
				}
				if code == 201 {
					mu.Lock()
					acked[name] = true
					mu.Unlock()
				}
			}
		}(c)
	}
	waitFor(t, 20*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 60 })
	phase("acknowledged enough")
	pids := runningPIDs(dir, "pid")
	children := runningPIDs(dir, "child")
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.cmd.Wait()
	close(stop)
	wg.Wait()
	phase("killed")

	// The crashed server's pods die with it, and their children are gone by
	// the time the restarted server is ready.
	if len(pids) == 0 || len(children) == 0 {
		t.Fatal("no pod was running before the crash; the test did not exercise recovery")
	}
	waitFor(t, 5*time.Second, func() bool { return allGone(pids) })

	s = startServer(t, bin, dir, anyPort)
	phase("restarted")
	defer func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		_ = s.cmd.Wait()
		phase("stopped")
	}()
	if !allGone(children) {
		t.Fatal("a pod's child process from before the crash still runs after the restart")
	}
	seen := map[string]taskJSON{}
	for after := int64(0); ; {
		var page struct {
			Tasks     []taskJSON
			NextAfter int64
		}
		if code, err := s.call("GET", fmt.Sprintf("/api/v1/tasks?limit=500&after=%d", after), nil, &page); err != nil || code != 200 {
			t.Fatalf("list: %d %v", code, err)
		}
		for _, tk := range page.Tasks {
			if _, dup := seen[tk.Name]; dup {
				t.Fatalf("task %s listed twice", tk.Name)
			}
			seen[tk.Name] = tk
		}
		if page.NextAfter == 0 {
			break
		}
		after = page.NextAfter
	}
	for name := range acked {
		if _, ok := seen[name]; !ok {
			t.Errorf("acknowledged task %s was lost", name)
		}
	}
	interrupted := 0
	for _, tk := range seen {
		if tk.Resumes > 0 {
			interrupted++
		}
	}
	if interrupted == 0 {
		t.Fatal("no task was requeued after the crash")
	}
	t.Logf("%d tasks acknowledged before the crash, %d stored, %d requeued to resume", len(acked), len(seen), interrupted)
	if pyErr == nil {
		defer func() {
			if t.Failed() {
				b, _ := os.ReadFile(filepath.Join(dir, "tasks", "train", "logs", "rank-0.log"))
				var v map[string]any
				s.call("GET", "/api/v1/tasks/train", nil, &v)
				t.Logf("train: %v\nlog tail: %s", v, tail(string(b), 600))
			}
		}()
		waitFor(t, 20*time.Second, func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, "tasks", "train", "logs", "rank-0.log"))
			i := strings.LastIndex(string(b), "resuming from checkpoint at step ")
			if i < 0 {
				return false
			}
			var step int
			fmt.Sscanf(string(b[i:]), "resuming from checkpoint at step %d", &step)
			return step >= 10
		})
	}
}

// allGone reports whether none of pids runs. A zombie counts as gone: it
// has exited, and this machine's init may never reap it.
func allGone(pids []int) bool {
	for _, pid := range pids {
		if alive(pid) {
			return false
		}
	}
	return true
}

func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// runningPIDs reads the pids that pods wrote into their checkpoint dirs.
func runningPIDs(dir, file string) []int {
	var out []int
	files, _ := filepath.Glob(filepath.Join(dir, "work", "*", "*", file))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// waitFor polls cond until it holds, for d stretched by the machine's load
// (testwait).
func waitFor(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	testwait.For(t, d, 50*time.Millisecond, "condition not met", cond)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
