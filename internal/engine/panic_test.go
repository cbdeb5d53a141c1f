package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestPanicInABatchIsUndone: a batch whose op panics after changing the
// core (a bug) does not stop the engine: the batch is undone from the
// store, its caller gets a retryable error naming the internal error, the
// engine is ready again at its next try, and the state equals what the store
// holds.
func TestPanicInABatchIsUndone(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if err := h.submit("before", "a", 1); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	ghost := model.TaskSpec{Name: "ghost", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 1, Command: []string{"true"}}
	_, err := h.e.do(ctx, nil, func(*writes) (any, error) {
		if err := h.e.sched.Submit(ghost, h.e.now()); err != nil {
			return nil, err
		}
		panic("boom")
	})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "internal error: boom") {
		t.Fatalf("the panicking batch answered %v", err)
	}
	if h.e.Err() != nil {
		t.Fatalf("the engine stopped: %v", h.e.Err())
	}
	h.waitReady()
	if _, err := h.e.Task(ctx, "ghost"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("the undone batch's task is there: %v", err)
	}
	if err := h.submit("after", "a", 1); err != nil {
		t.Fatalf("a submission after the panic: %v", err)
	}
	h.quiesce()
	h.checkRecoveryEqualsLive("after a panic")
}

// TestPanicLeavesTheEngineNotReady: until its next try, an engine whose batch
// panicked says it is not ready, naming the internal error, refuses writes
// with a retryable error, and still answers reads.
func TestPanicLeavesTheEngineNotReady(t *testing.T) {
	h := newHarnessRetry(t, harnessCluster, nil, time.Hour)
	ctx := context.Background()
	if err := h.submit("before", "a", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.do(ctx, nil, func(*writes) (any, error) { panic("boom") }); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("the panicking batch answered %v", err)
	}
	if hl := h.e.Health(); hl.Ready || !strings.Contains(hl.Reason, "internal error: boom") {
		t.Fatalf("health after a panic: %+v", hl)
	}
	if err := h.submit("refused", "a", 1); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a write while not ready: %v", err)
	}
	if _, err := h.e.Task(ctx, "before"); err != nil {
		t.Fatalf("a read while not ready: %v", err)
	}
	if _, err := h.e.Task(ctx, "refused"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("the refused write changed something: %v", err)
	}
}

// TestPanicThenFailedRebuildStops: if the state cannot be reread after a
// panic, the engine stops (the server exits) and says why, rather than
// going on from a half-changed core.
func TestPanicThenFailedRebuildStops(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	_, err := h.e.do(ctx, nil, func(*writes) (any, error) {
		h.st.mu.Lock()
		h.st.st.cluster = nil // the rebuild finds no stored cluster
		h.st.mu.Unlock()
		panic("boom")
	})
	if err == nil {
		t.Fatal("the panicking batch answered no error")
	}
	h.waitStoppedAfterInternalError()
}

// waitStoppedAfterInternalError waits until the engine has stopped because
// its state could not be reread after a panic, and checks that it says so.
func (h *harness) waitStoppedAfterInternalError() {
	h.t.Helper()
	select {
	case <-h.e.stopped:
	case <-time.After(5 * time.Second):
		h.t.Fatal("the engine did not stop")
	}
	if hl := h.e.Health(); hl.Ready || !strings.Contains(hl.Reason, "after an internal error") {
		h.t.Fatalf("health after a failed rebuild: %+v", hl)
	}
}
