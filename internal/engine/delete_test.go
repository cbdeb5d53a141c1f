package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

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

// TestDeleteTaskInTheBatchItFinishes: a delete and the pod exit that ends
// the task may share a batch. If the exit comes first, the task is no
// longer live but its finished record is not stored yet: the delete must
// mark that record, not the store's older running one (which it would
// store back as Running). The order within a batch is the loop's choice,
// so the pair is tried 20 times, each held behind a commit until both wait.
func TestDeleteTaskInTheBatchItFinishes(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	exitFirst := 0
	for i := range 20 {
		name := fmt.Sprintf("pair-%d", i)
		if err := h.submit(name, "a", 1); err != nil {
			t.Fatal(err)
		}
		h.quiesce()
		entered, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		hold := func() { once.Do(func() { close(entered); <-release }) }
		h.st.onApply.Store(&hold)
		go h.e.Audit(ctx, "test", "hold", name, "ok") // a write: its commit holds the loop
		<-entered
		h.st.onApply.Store(nil)
		if !h.x.exit(name, 0, false, nil) {
			t.Fatalf("%s did not start", name)
		}
		got := make(chan error, 1)
		go func() { _, err := h.e.DeleteTask(ctx, "test", name); got <- err }()
		for len(h.e.inbox) == 0 {
			time.Sleep(time.Millisecond)
		}
		close(release)
		if err := <-got; err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		h.quiesce()
		r, err := h.st.Task(ctx, name)
		if err != nil || !r.Deleted() || !r.State.Terminal() {
			t.Fatalf("%s stored after the delete: %+v %v", name, r, err)
		}
		if r.State == model.StateSucceeded {
			exitFirst++
		}
	}
	t.Logf("the exit came first in %d of 20 batches", exitFirst)
}
