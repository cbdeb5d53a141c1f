package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/executor/local"
	"github.com/taskgov/taskgov/internal/model"
)

// submitKeyed posts body as token with an Idempotency-Key (none when key
// is empty) and returns the status, the replay header and the body.
func (e *env) submitKeyed(token, key, body string) (int, string, string) {
	e.t.Helper()
	req := httptest.NewRequest("POST", e.url+"/api/v1/tasks", strings.NewReader(body))
	req.RequestURI = ""
	req.Header.Set("Authorization", "Bearer "+token)
	if key != "" {
		req.Header.Set(IdempotencyKeyHeader, key)
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get(ReplayedHeader), string(b)
}

// restartWithImages stops e's server and engine and starts them again on
// the same store, with a local executor that maps images (the cluster
// file's images: section as the restarted server reads it).
func (e *env) restartWithImages(images map[string][]string) {
	e.t.Helper()
	e.srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.eng.Shutdown(ctx); err != nil {
		e.t.Fatal(err)
	}
	exec := local.NewWith(local.Options{StateDir: e.t.TempDir(), Images: images, Now: time.Now})
	e.t.Cleanup(exec.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var err error
	if e.eng, err = engine.Open(context.Background(), engine.Options{Store: e.st, Executor: exec, Log: log}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = e.eng.Shutdown(context.Background()) })
	e.srv = httptest.NewServer(New(e.eng, log, func() bool { return true }).WithRunCheck(exec.CheckRun))
	e.t.Cleanup(e.srv.Close)
	e.url = e.srv.URL
}

// TestRetryIsAnsweredBeforeTheRunCheckAndTheCap: a client that lost the
// answer to a stored submission and retries it with the same
// Idempotency-Key gets its task (201, Idempotent-Replayed) even when the
// restarted server's images: no longer map the task's image and the team
// is at maxPendingPerTeam, for a live task and for a cancelled one (read
// back from the store). A new submission of the same image is still
// refused by the run check (400 naming the command), and a new one with a
// command by the cap (429); neither is stored.
func TestRetryIsAnsweredBeforeTheRunCheckAndTheCap(t *testing.T) {
	e := newEnv(t, strings.Replace(pendingCapCluster, "maxPendingPerTeam: 3", "maxPendingPerTeam: 1", 1)+`images:
  reg.example/train:1: [sleep, "600"]
`)
	alpha := e.token(model.RoleMember, "alpha")
	task := func(name string) string {
		return `{"name":"` + name + `","team":"alpha","instanceType":"ml.p5.48xlarge","image":"reg.example/train:1"}`
	}
	seqs := map[string]float64{}
	for _, name := range []string{"old", "live"} {
		code, _, body := e.submitKeyed(alpha, "key-"+name, task(name))
		if code != 201 {
			t.Fatalf("submitting %s: %d %s", name, code, body)
		}
		var rec map[string]any
		_ = json.Unmarshal([]byte(body), &rec)
		seqs[name] = rec["seq"].(float64)
		if name == "old" {
			e.mustDo("POST", "/api/v1/tasks/old/cancel", alpha, nil, 200, nil)
		}
	}

	e.restartWithImages(nil) // the images: section was removed
	for _, name := range []string{"old", "live"} {
		code, replayed, body := e.submitKeyed(alpha, "key-"+name, task(name))
		var rec map[string]any
		_ = json.Unmarshal([]byte(body), &rec)
		if code != 201 || replayed != "true" || rec["seq"] != seqs[name] {
			t.Errorf("a retry of the stored submission %s after the images changed, at the cap: %d replayed=%q %s; want its task (seq %v)",
				name, code, replayed, body, seqs[name])
		}
	}
	if code, _, body := e.submitKeyed(alpha, "key-new", task("new")); code != 400 || !strings.Contains(body, `cannot run image \"reg.example/train:1\"'s entrypoint`) {
		t.Errorf("a new submission of the unmapped image: %d %s; want the run check's 400", code, body)
	}
	cmd := `{"name":"cmd","team":"alpha","instanceType":"ml.p5.48xlarge","command":["true"]}`
	if code, _, body := e.submitKeyed(alpha, "key-cmd", cmd); code != 429 || !strings.Contains(body, "team alpha has 1 pending tasks") {
		t.Errorf("a new submission at the cap: %d %s; want 429", code, body)
	}
	for _, name := range []string{"new", "cmd"} {
		if _, ok := e.eng.View().Record(name); ok {
			t.Errorf("the refused task %s was stored", name)
		}
	}
}

// TestConcurrentSubmissionsCannotPassThePendingCap: 64 members' requests
// sent at once to a team 10 below its cap store exactly 10 tasks; the
// rest get 429 naming the cap, and the team has exactly the cap pending.
// The cap is decided in the engine's op (checkPendingCap), so the batch
// that takes many submissions together counts its own.
func TestConcurrentSubmissionsCannotPassThePendingCap(t *testing.T) {
	const limit, senders = 20, 64
	e := newEnv(t, strings.Replace(pendingCapCluster, "maxPendingPerTeam: 3", "maxPendingPerTeam: "+strconv.Itoa(limit), 1))
	alpha := e.token(model.RoleMember, "alpha")
	body := func(name string) string {
		return `{"name":"` + name + `","team":"alpha","instanceType":"ml.p5.48xlarge","command":["true"]}`
	}
	for i := range limit - 10 {
		if code, _, out := e.submitKeyed(alpha, "", body("pre"+strconv.Itoa(i))); code != 201 {
			t.Fatalf("submission %d under the cap: %d %s", i, code, out)
		}
	}
	codes := make([]int, senders)
	bodies := make([]string, senders)
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start.Wait()
			req := httptest.NewRequest("POST", e.url+"/api/v1/tasks", strings.NewReader(body("burst"+strconv.Itoa(i))))
			req.RequestURI = ""
			req.Header.Set("Authorization", "Bearer "+alpha)
			resp, err := e.srv.Client().Do(req)
			if err != nil {
				bodies[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			codes[i], bodies[i] = resp.StatusCode, string(b)
		}()
	}
	start.Done()
	wg.Wait()
	stored := 0
	for i, c := range codes {
		switch {
		case c == 201:
			stored++
		case c == 429 && strings.Contains(bodies[i], "maxPendingPerTeam "+strconv.Itoa(limit)):
		default:
			t.Errorf("burst submission %d: %d %s; want 201 or the cap's 429", i, c, bodies[i])
		}
	}
	if stored != 10 {
		t.Errorf("%d of %d concurrent submissions were stored 10 below the cap; want exactly 10", stored, senders)
	}
	if n := e.eng.View().Pending("alpha"); n != limit {
		t.Errorf("alpha has %d pending, want the cap, %d", n, limit)
	}
}
