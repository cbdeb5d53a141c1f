package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestStoreDownForCommitAndReread: the store goes away under a batch (a
// PostgreSQL restart): its commit fails and so does the reread that undoes
// it. The engine does not stop (before, it exited with "could not reread
// the state"): it says it is degraded, refuses writes with ErrUnavailable,
// publishes nothing of the undone batch, and once the store answers again
// rereads the state, takes writes and holds exactly what was acknowledged.
func TestStoreDownForCommitAndReread(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if err := h.submit("before", "a", 1); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	down := errors.New("fake: connection refused (the database system is starting up)")
	h.st.mu.Lock()
	h.st.down = down
	h.st.mu.Unlock()
	if err := h.submit("lost", "a", 1); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a submission whose commit failed: %v", err)
	}
	if err := h.submit("refused", "b", 1); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a submission while the state cannot be reread: %v", err)
	}
	select {
	case <-h.e.Done():
		t.Fatalf("the engine stopped: %v", h.e.Err())
	default:
	}
	if hl := h.e.Health(); hl.Ready || !strings.Contains(hl.Reason, "writes are failing") || !strings.Contains(hl.Reason, "check the database") {
		t.Fatalf("health while the store is down: %+v", hl)
	}
	if _, err := h.e.Task(ctx, "lost"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("the undone submission is visible: %v", err)
	}
	list, _ := h.e.View().Waiting()
	for _, w := range list {
		if w.Task == "lost" {
			t.Fatal("the undone submission is listed in the queue")
		}
	}

	h.st.mu.Lock()
	h.st.down = nil
	h.st.mu.Unlock()
	h.waitReady()
	if err := h.submit("after", "b", 1); err != nil {
		t.Fatalf("a submission once the store is back: %v", err)
	}
	h.quiesce()
	for name, want := range map[string]bool{"before": true, "lost": false, "refused": false, "after": true} {
		_, err := h.e.Task(ctx, name)
		if got := err == nil; got != want {
			t.Fatalf("task %s present %v, want %v (%v)", name, got, want, err)
		}
	}
	h.checkRecoveryEqualsLive("after the store came back")
}
