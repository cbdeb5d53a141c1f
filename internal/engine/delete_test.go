package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestDeleteTask: a finished task is marked deleted (it answered "not
// live" before); a write that fails marks nothing and the engine goes on;
// a second delete is not found; a live task is cancelled and marked in the
// same write, and recovery from the store matches the live engine.
func TestDeleteTask(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if err := h.submit("done", "a", 1); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	if !h.x.exit("done", 0, false, nil) {
		t.Fatal("the task did not start")
	}
	h.quiesce()

	h.st.setFull(1)
	if _, err := h.e.DeleteTask(ctx, "test", "done"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a delete whose write fails: %v", err)
	}
	h.waitReady()
	if r, _ := h.st.Task(ctx, "done"); r.Deleted() {
		t.Fatalf("a delete whose write failed marked the task: %+v", r)
	}
	r, err := h.e.DeleteTask(ctx, "test", "done")
	if err != nil || !r.Deleted() || r.State != model.StateSucceeded {
		t.Fatalf("deleting the finished task: %+v %v", r, err)
	}
	if s, _ := h.st.Task(ctx, "done"); !s.Deleted() || s.State != model.StateSucceeded {
		t.Fatalf("stored after the delete: %+v", s)
	}
	if _, err := h.e.DeleteTask(ctx, "test", "done"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("deleting it again: %v", err)
	}
	if _, err := h.e.DeleteTask(ctx, "test", "never"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("deleting a name never used: %v", err)
	}

	if err := h.submit("live", "a", 1); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	r, err = h.e.DeleteTask(ctx, "test", "live")
	if err != nil || !r.Deleted() || r.State != model.StateCancelled {
		t.Fatalf("deleting a live task: %+v %v", r, err)
	}
	h.quiesce()
	h.checkRecoveryEqualsLive("after deleting a live task")
	if len(h.x.running()) != 0 {
		t.Fatalf("the deleted live task still runs: %v", h.x.running())
	}
}
