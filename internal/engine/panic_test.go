package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

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
