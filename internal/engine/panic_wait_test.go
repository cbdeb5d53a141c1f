package engine

import (
	"context"
	"errors"
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
// for a reader (outside any batch) does not stop the engine: the reader is
// told the queue cannot be listed (not an empty queue), the engine says it is
// not ready, naming the internal error, further reads do not try again during
// the pause, reads of tasks still answer, /metrics says the queue is not
// counted, and after the pause the queue is listed again from a state equal
// to the store's. A second panic in a row pauses twice as long.
func TestPanicListingTheQueueIsCaught(t *testing.T) {
	h := newHarnessRetry(t, harnessCluster, nil, time.Minute)
	ctx := context.Background()
	h.fill()
	h.quiesce()
	calls := 0
	h.failListing(&calls, nil)
	err := h.e.QueueErr()
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "internal error: boom listing") {
		t.Fatalf("the queue's error after a panic listing it: %v", err)
	}
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
		if h.e.QueueErr() == nil {
			t.Fatal("a read during the pause listed the queue")
		}
	}
	if calls != 1 {
		t.Fatalf("the list was tried %d times during the pause, want once", calls)
	}
	if r, err := h.e.Task(ctx, "waits"); err != nil || r.State != model.StatePending || !strings.Contains(r.Why, "unknown for now") {
		t.Fatalf("a task read after the panic: %+v, %v", r, err)
	}
	if s := h.e.MetricsSnapshot(); s.QueueListed || !s.EngineUp {
		t.Fatalf("metrics after the panic: listed %v, up %v", s.QueueListed, s.EngineUp)
	}
	h.e.mu.Lock()
	first := time.Until(h.e.waitCrashUntil)
	h.e.waitCrashUntil, h.e.retryAt = time.Now(), time.Now() // end the pause
	h.e.mu.Unlock()
	h.quiesce() // a step: the retry
	h.waitReady()
	if err := h.e.QueueErr(); err == nil || calls != 2 {
		t.Fatalf("a second panic in a row: err %v, %d tries", err, calls)
	}
	h.e.mu.Lock()
	second := time.Until(h.e.waitCrashUntil)
	h.e.waitingOf = nil
	h.e.waitCrashUntil, h.e.retryAt = time.Now(), time.Now()
	h.e.mu.Unlock()
	h.quiesce()
	if second < first+first/2 {
		t.Fatalf("the second pause (%v) is not about twice the first (%v)", second, first)
	}
	h.waitReady()
	if err := h.e.QueueErr(); err != nil {
		t.Fatalf("the queue once the list works again: %v", err)
	}
	page, total := h.e.QueuePage(nil, 0, 10)
	if total != 1 || len(page) != 1 || page[0].Name != "waits" {
		t.Fatalf("the queue once ready again: %+v of %d, want waits", page, total)
	}
	if s := h.e.MetricsSnapshot(); !s.QueueListed {
		t.Fatal("metrics do not count the queue again")
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
	h.waitStoppedAfterInternalError()
}
