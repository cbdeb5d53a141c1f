package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/executor/local"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlite"
)

// refuseDeletes is a store whose commits fail, as a full disk fails them,
// while refuse is set and the batch marks a task deleted.
type refuseDeletes struct {
	*sqlite.Store
	refuse atomic.Bool
}

func (s *refuseDeletes) Apply(ctx context.Context, ws []model.Write) error {
	for _, w := range ws {
		if s.refuse.Load() && w.UpdateTask != nil && w.UpdateTask.Deleted() {
			return errors.New("injected: the disk is full")
		}
	}
	return s.Store.Apply(ctx, ws)
}

// listed reports whether GET /api/v1/tasks (with extra query) lists name.
func (e *env) listed(name, extra string) bool {
	e.t.Helper()
	var list struct{ Tasks []struct{ Name string } }
	e.mustDo("GET", "/api/v1/tasks?team=alpha"+extra, e.admin, nil, 200, &list)
	for _, t := range list.Tasks {
		if t.Name == name {
			return true
		}
	}
	return false
}

// TestDeleteFinishedTask: HyperPod's delete removes a job whatever its
// state, and its walkthrough ends by deleting every job it submitted;
// DELETE of a finished task answered 404 ("not live") and the task stayed
// listed. Now it is left out of lists and answers not found, while its
// events, usage and audit entries stay and its team may reuse the name.
// Another team's member, and a viewer, cannot delete it; a failed write
// hides nothing; a restart keeps it hidden.
func TestDeleteFinishedTask(t *testing.T) {
	st := &refuseDeletes{}
	e := newEnvWith(t, testCluster, envOptions{store: func(s *sqlite.Store) engine.Store { st.Store = s; return st }})
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("done", "alpha", "true"), 201, nil)
	e.waitState("done", model.StateSucceeded, 20*time.Second)
	window := "from=" + url.QueryEscape(time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)) +
		"&to=" + url.QueryEscape(time.Now().Add(time.Hour).UTC().Format(time.RFC3339))

	if code, b := e.do("DELETE", "/api/v1/tasks/done", e.token(model.RoleMember, "beta"), nil); code != http.StatusNotFound || strings.Contains(string(b), "alpha") {
		t.Fatalf("another team's member deleting: %d %s", code, b)
	}
	if code, b := e.do("DELETE", "/api/v1/tasks/done", e.token(model.RoleViewer, "alpha"), nil); code != http.StatusForbidden {
		t.Fatalf("a viewer deleting: %d %s", code, b)
	}
	st.refuse.Store(true)
	if code, b := e.do("DELETE", "/api/v1/tasks/done", e.admin, nil); code != http.StatusServiceUnavailable || !strings.Contains(string(b), "disk is full") &&
		!strings.Contains(string(b), "nothing was changed") {
		t.Fatalf("deleting while the store refuses: %d %s", code, b)
	}
	if !e.listed("done", "") {
		t.Fatal("a delete whose write failed hid the task")
	}
	st.refuse.Store(false)
	member := e.token(model.RoleMember, "alpha")
	var del model.TaskRecord
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		code, b := e.do("DELETE", "/api/v1/tasks/done", member, nil)
		if code == http.StatusOK {
			if err := json.Unmarshal(b, &del); err != nil {
				t.Fatal(err)
			}
			break
		}
		if code != http.StatusServiceUnavailable || time.Now().After(deadline) { // 503 until the engine's retry writes again
			t.Fatalf("a member deleting the finished task: %d %s", code, b)
		}
	}
	if del.State != model.StateSucceeded || !del.Deleted() {
		t.Fatalf("the deleted record: %+v", del)
	}
	checkDeleted := func(when string) {
		t.Helper()
		if e.listed("done", "") || e.listed("done", "&q=done") {
			t.Fatalf("%s: the deleted task is still listed", when)
		}
		if !e.listed("done", "&deleted=true") || !e.listed("done", "&q=done&deleted=true") {
			t.Fatalf("%s: ?deleted=true does not list the deleted task", when)
		}
		if code, b := e.do("GET", "/api/v1/tasks/done", e.admin, nil); code != http.StatusNotFound || !strings.Contains(string(b), "deleted at") {
			t.Fatalf("%s: reading the deleted task: %d %s", when, code, b)
		}
		if code, b := e.do("DELETE", "/api/v1/tasks/done", e.admin, nil); code != http.StatusNotFound {
			t.Fatalf("%s: deleting it again: %d %s", when, code, b)
		}
		var evs struct{ Events []model.Event }
		e.mustDo("GET", "/api/v1/tasks/done/events", e.admin, nil, 200, &evs)
		if len(evs.Events) == 0 || evs.Events[len(evs.Events)-1].Kind != engine.ActDelete {
			t.Fatalf("%s: events of the deleted task: %+v", when, evs.Events)
		}
		var rep struct{ Detailed []struct{ Task string } }
		e.mustDo("GET", "/api/v1/usage/report?type=detailed&"+window, e.admin, nil, 200, &rep)
		if len(rep.Detailed) != 1 || rep.Detailed[0].Task != "done" {
			t.Fatalf("%s: the usage report lost the deleted task's run: %+v", when, rep.Detailed)
		}
		var audit struct{ Entries []model.AuditEntry }
		e.mustDo("GET", "/api/v1/audit?task=done", e.admin, nil, 200, &audit)
		ok := 0
		for _, a := range audit.Entries {
			if a.Action == "task.delete" && a.Result == "ok" && a.Team == "alpha" {
				ok++
			}
		}
		if ok != 1 {
			t.Fatalf("%s: audit entries of the delete: %+v", when, audit.Entries)
		}
	}
	checkDeleted("after the delete")

	// A restart: the engine recovers from the store.
	e.srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.eng.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, []byte(testCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.LoadCluster(path)
	if err != nil {
		t.Fatal(err)
	}
	exec := local.New(t.TempDir(), time.Now)
	t.Cleanup(exec.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if e.eng, err = engine.Open(context.Background(), engine.Options{Store: st, Executor: exec, Cluster: &c, Log: log}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.eng.Shutdown(context.Background()) })
	e.srv = httptest.NewServer(New(e.eng, log, func() bool { return true }))
	t.Cleanup(e.srv.Close)
	e.url = e.srv.URL
	checkDeleted("after a restart")

	// The team reuses the name: a new task, listed.
	e.mustDo("POST", "/api/v1/tasks", member, spec("done", "alpha", "sleep", "30"), 201, nil)
	if !e.listed("done", "") {
		t.Fatal("the name's new task is not listed")
	}
	// Deleting a live task cancels it in the same write.
	e.mustDo("DELETE", "/api/v1/tasks/done", member, nil, 200, &del)
	if del.State != model.StateCancelled || !del.Deleted() || e.listed("done", "") {
		t.Fatalf("deleting a live task: %+v", del)
	}
}
