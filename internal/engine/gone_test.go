package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestStartGoneDeletes: a start the executor refuses because the task's
// object is gone (executor.ErrGone: a Kubernetes workload deleted while no
// leader ran) deletes the task, as a delete of the object does, instead of
// failing it: cancelled and marked deleted in one write, with an audit
// entry; its nodes go to the next task; a restart rebuilds the same state.
func TestStartGoneDeletes(t *testing.T) {
	h := newHarness(t)
	h.x.mu.Lock()
	h.x.goneStart["gone"] = true
	h.x.mu.Unlock()
	h.st.mu.Lock()
	audits := h.st.st.audit
	h.st.mu.Unlock()
	if err := h.submit("gone", "a", 2); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	r, _ := h.st.Task(context.Background(), "gone")
	if r.State != model.StateCancelled || !r.Deleted() || !strings.Contains(r.Message, "is gone") {
		t.Fatalf("task whose object is gone at its start: %s deleted=%v %q; want cancelled, deleted, naming why", r.State, r.Deleted(), r.Message)
	}
	if _, err := h.e.DeleteTask(context.Background(), "test", "gone"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("a second delete of it: %v, want not found (it is deleted)", err)
	}
	h.st.mu.Lock()
	got := h.st.st.audit - audits
	h.st.mu.Unlock()
	if got < 2 { // the submission's and the delete's
		t.Errorf("%d audit entries after the submission and the delete, want 2", got)
	}
	if err := h.submit("good", "a", 2); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	h.checkRecoveryEqualsLive("end")
	if got := h.x.running(); len(got) != 1 || got[0] != "good" {
		t.Fatalf("running: %v", got)
	}
}

// TestStartGoneDeleteWriteFails: when the write that deletes a task whose
// object is gone fails (disk full), nothing of it is stored: the task is
// not left deleted in memory only, and it is not lost either; once the
// store takes writes again the task ends deleted, and a restart rebuilds
// the same state.
func TestStartGoneDeleteWriteFails(t *testing.T) {
	h := newHarness(t)
	h.x.mu.Lock()
	h.x.goneStart["gone"] = true
	h.x.goneFail = h.st
	h.x.mu.Unlock()
	if err := h.submit("gone", "a", 2); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	h.waitReady()
	h.quiesce()
	r, _ := h.st.Task(context.Background(), "gone")
	if h.st.failed.Load() == 0 {
		t.Fatal("no commit failed: the test did not reach the gone start's write")
	}
	if r.State != model.StateCancelled || !r.Deleted() {
		t.Fatalf("after a failed write and the store's recovery: %s deleted=%v %q; want cancelled and deleted", r.State, r.Deleted(), r.Message)
	}
	h.checkRecoveryEqualsLive("end")
}
