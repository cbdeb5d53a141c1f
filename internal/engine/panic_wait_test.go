package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/model"
)

// failListing makes the next builds of the waiting list panic, counting them.
func (h *harness) failListing(calls *int, before func()) {
	h.e.mu.Lock()
	h.e.waitingOf = func(*core.Scheduler) []model.Waiting {
		*calls++
		if before != nil {
			before()
		}
		panic("boom listing")
	}
	h.e.mu.Unlock()
}

// fill runs a task of each team on the harness's four nodes, then queues
// "waits".
func (h *harness) fill() {
	h.t.Helper()
	for _, s := range []struct {
		name, team string
		nodes      int
	}{{"run-a", "a", 2}, {"run-b", "b", 2}, {"waits", "a", 1}} {
		if err := h.submit(s.name, s.team, s.nodes); err != nil {
			h.t.Fatal(err)
		}
	}
}

// TestPanicListingTheQueueIsCaught: a panic while the waiting list is built
// for a reader (outside any batch) does not stop the engine: the reader gets
// an empty queue, the engine says it is not ready, naming the internal
// error, further reads do not try again until the next step, reads of tasks
// still answer, and after the retry the queue is listed again from a state
// equal to the store's.
func TestPanicListingTheQueueIsCaught(t *testing.T) {
	h := newHarnessRetry(t, harnessCluster, nil, 200*time.Millisecond)
	ctx := context.Background()
	h.fill()
	h.quiesce()
	calls := 0
	h.failListing(&calls, nil)
	if page, total := h.e.QueuePage(nil, 0, 10); total != 0 || len(page) != 0 {
		t.Fatalf("the queue after a panic listing it: %d of %d", len(page), total)
	}
	if hl := h.e.Health(); hl.Ready || !strings.Contains(hl.Reason, "internal error: boom listing") {
		t.Fatalf("health after a panic listing the queue: %+v", hl)
	}
	if h.e.Err() != nil {
		t.Fatalf("the engine stopped: %v", h.e.Err())
	}
	for range 3 {
		h.e.QueuePage(nil, 0, 10)
	}
	if calls != 1 {
		t.Fatalf("the list was tried %d times before the next step, want once", calls)
	}
	if r, err := h.e.Task(ctx, "waits"); err != nil || r.State != model.StatePending {
		t.Fatalf("a task read after the panic: %+v, %v", r, err)
	}
	h.e.mu.Lock()
	h.e.waitingOf = nil
	h.e.mu.Unlock()
	h.waitReady()
	page, total := h.e.QueuePage(nil, 0, 10)
	if total != 1 || len(page) != 1 || page[0].Name != "waits" {
		t.Fatalf("the queue once ready again: %+v of %d, want waits", page, total)
	}
	h.checkRecoveryEqualsLive("after a panic listing the queue")
}

// TestPanicListingThenFailedRebuildStops: if the state cannot be reread
// after such a panic, the engine stops and says why.
func TestPanicListingThenFailedRebuildStops(t *testing.T) {
	h := newHarness(t)
	h.fill()
	h.quiesce()
	calls := 0
	h.failListing(&calls, func() {
		h.st.mu.Lock()
		h.st.st.cluster = nil // the rebuild finds no stored cluster
		h.st.mu.Unlock()
	})
	h.e.QueuePage(nil, 0, 10)
	select {
	case <-h.e.stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the engine did not stop")
	}
	if hl := h.e.Health(); hl.Ready || !strings.Contains(hl.Reason, "after an internal error") {
		t.Fatalf("health after a failed rebuild: %+v", hl)
	}
}
