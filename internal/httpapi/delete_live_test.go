package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlite"
)

// TestDeleteLiveTaskWriteFails: deleting a running task cancels it and
// marks it deleted in one write. When that write fails, nothing of it
// happens: the answer is 503, the task keeps running (its pods got no
// SIGTERM: the stop is sent only after the commit) and stays listed. The
// delete done again cancels it.
func TestDeleteLiveTaskWriteFails(t *testing.T) {
	st := &refuseDeletes{}
	e := newEnvWith(t, testCluster, envOptions{store: func(s *sqlite.Store) engine.Store { st.Store = s; return st }})
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("live", "alpha", "sleep", "30"), 201, nil)
	e.waitState("live", model.StateRunning, 20*time.Second)

	st.refuse.Store(true)
	if code, b := e.do("DELETE", "/api/v1/tasks/live", e.admin, nil); code != http.StatusServiceUnavailable {
		t.Fatalf("deleting while the store refuses: %d %s", code, b)
	}
	time.Sleep(500 * time.Millisecond) // a stop sent by mistake would have ended the run by now
	if v := e.waitState("live", model.StateRunning, 5*time.Second); v.Deleted() {
		t.Fatalf("a delete whose write failed marked the task: %+v", v.TaskRecord)
	}
	if !e.listed("live", "") {
		t.Fatal("a delete whose write failed hid the task")
	}

	st.refuse.Store(false)
	var del model.TaskRecord
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		code, b := e.do("DELETE", "/api/v1/tasks/live", e.admin, nil)
		if code == http.StatusOK {
			if err := json.Unmarshal(b, &del); err != nil {
				t.Fatal(err)
			}
			break
		}
		if code != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("deleting once the store writes again: %d %s", code, b)
		}
	}
	if del.State != model.StateCancelled || !del.Deleted() || !strings.Contains(del.Message, "cancelled by") {
		t.Fatalf("the deleted live task: %+v", del)
	}
	if e.listed("live", "") {
		t.Fatal("the deleted task is still listed")
	}
}
