package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestPostgresRestartUnderTheLeader: PostgreSQL is restarted (an immediate
// shutdown, as a crash, then started again) under a leader that runs a
// task while clients submit. The leader rides it out: it keeps its lease,
// says it is degraded while writes fail, is ready again by itself, and its
// task runs on, never restarted. Before, the failed commit's undo could not
// reread the state from the restarting database and the leader exited,
// so a one-second database restart cost a failover and a task restart.
// Then PostgreSQL stays down longer than the leader may act without
// renewing: the leader steps down (exits non-zero), the standby keeps
// answering health and refuses calls with a JSON error rather than a bare
// 502, and takes over once the database is back. Every acknowledged
// submission is stored exactly once throughout.
func TestPostgresRestartUnderTheLeader(t *testing.T) {
	f := newPGFixture(t, `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 4}]
teams: [{name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 4}]}]
`)
	const lease = 15 * time.Second // the leader may act 10 s past its last renewal
	beats := filepath.Join(f.dir, "beats.log")
	a, b := f.startPair(t, f.dsn, "--leader-elect-lease-duration", lease.String())
	long := map[string]any{"name": "long", "team": "alpha", "instanceType": "ml.p5.48xlarge", "command": beatScript(beats, 100000)}
	if code, err := a.call("POST", "/api/v1/tasks", long, nil); err != nil || code != 201 {
		t.Fatalf("submit: %d %v", code, err)
	}
	aDir := filepath.Join(f.dir, "a")
	waitFor(t, 10*time.Second, func() bool { return len(readBeats(t, beats)) > 0 })

	// Clients submit through the leader while the database restarts; every
	// answer comes within the client's timeout (no hang).
	hc := &http.Client{Timeout: 30 * time.Second}
	var mu sync.Mutex
	acked := map[string]bool{}
	codes := map[int]int{}
	submit := func(via *replica, name string) (int, string) {
		body, _ := json.Marshal(map[string]any{"name": name, "team": "alpha", "instanceType": "ml.p5.48xlarge", "command": []string{"true"}})
		req, _ := http.NewRequest("POST", via.url+"/api/v1/tasks", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+via.token)
		req.Header.Set("Idempotency-Key", "key-"+name)
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		var out bytes.Buffer
		_, _ = out.ReadFrom(resp.Body)
		mu.Lock()
		codes[resp.StatusCode]++
		if resp.StatusCode == 201 {
			acked[name] = true
		}
		mu.Unlock()
		return resp.StatusCode, out.String()
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := 0; c < 4; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if code, body := submit(a, fmt.Sprintf("r%d-%d", c, i)); code == 0 {
					t.Errorf("a submission during the restart got no answer: %s", body)
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	restarted := time.Now()
	if err := f.pg.Restart(0); err != nil {
		t.Fatal(err)
	}
	t.Logf("PostgreSQL restarted in %.2f s", time.Since(restarted).Seconds())
	a.waitStatus(t, "/readyz", 200, 20*time.Second)
	back := time.Since(restarted)
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()
	t.Logf("the leader was ready %.2f s after the restart began; answers during it: %v", back.Seconds(), codes)
	if err := a.cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the leader exited over a database restart: %v", err)
	}
	if got := b.waitStatus(t, "/readyz", 503, time.Second)["leader"]; got != a.url {
		t.Fatalf("the standby names %q as leader, want %s", got, a.url)
	}
	if code, body := submit(a, "after-restart"); code != 201 {
		t.Fatalf("a submission after the restart: %d %s", code, body)
	}
	var task taskJSON
	if code, err := a.call("GET", "/api/v1/tasks/long", nil, &task); err != nil || code != 200 || task.State != "Running" || task.Resumes != 0 {
		t.Fatalf("the running task after the restart: %d %v %+v", code, err, task)
	}
	for _, x := range readBeats(t, beats) {
		if !strings.HasPrefix(x.replica, aDir) {
			t.Fatalf("the task ran on the standby during a database restart: %+v", x)
		}
	}
	checkStoredOnce(t, a, acked)

	// Down for longer than the leader may act: it steps down.
	downAt := time.Now()
	exited := make(chan error, 1)
	go func() { exited <- a.cmd.Wait() }()
	restartDone := make(chan error, 1)
	go func() { restartDone <- f.pg.Restart(lease) }()
	select {
	case err := <-exited:
		if err == nil {
			t.Fatal("the leader exited 0 after losing its database")
		}
		t.Logf("the leader stepped down %.2f s after the database went (%v)", time.Since(downAt).Seconds(), err)
	case <-time.After(lease):
		t.Fatal("the leader went on without its database for a whole lease")
	}
	// The standby: alive, not ready, and a call through it is refused in
	// JSON saying what to do (its leader is gone), not a hang or a bare 502.
	if got := b.waitStatus(t, "/healthz", 200, 5*time.Second)["role"]; got != "standby" {
		t.Fatalf("the standby's /healthz role: %q", got)
	}
	b.waitStatus(t, "/readyz", 503, 5*time.Second)
	code, body := submit(b, "via-standby")
	if code != 503 || !strings.Contains(body, `"fix"`) {
		t.Fatalf("a submission through the standby while its leader is gone: %d %s", code, body)
	}
	if err := <-restartDone; err != nil {
		t.Fatal(err)
	}
	b.waitStatus(t, "/readyz", 200, 3*lease)
	t.Logf("the standby took over %.2f s after the database went down (back after %s)", time.Since(downAt).Seconds(), lease)
	waitFor(t, 20*time.Second, func() bool {
		for _, x := range readBeats(t, beats) {
			if !strings.HasPrefix(x.replica, aDir) {
				return true
			}
		}
		return false
	})
	checkNoOverlap(t, readBeats(t, beats))
	checkStoredOnce(t, b, acked)
}

// checkStoredOnce: every acknowledged name is stored exactly once, and
// nothing else was stored but the long task and names that were tried.
func checkStoredOnce(t *testing.T, via *replica, acked map[string]bool) {
	t.Helper()
	var list struct {
		Tasks []struct{ Name string } `json:"tasks"`
	}
	if code, err := via.call("GET", "/api/v1/tasks?limit=1000", nil, &list); err != nil || code != 200 {
		t.Fatalf("listing: %d %v", code, err)
	}
	count := map[string]int{}
	for _, x := range list.Tasks {
		count[x.Name]++
	}
	for name := range acked {
		if count[name] != 1 {
			t.Fatalf("acknowledged task %s is stored %d times", name, count[name])
		}
	}
	for name, n := range count {
		if n != 1 {
			t.Fatalf("task %s is stored %d times", name, n)
		}
	}
}
