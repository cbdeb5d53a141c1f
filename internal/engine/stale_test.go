package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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
	if err := h.submit("lost", "a", 1); !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrUnconfirmed) {
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

// TestIdleEngineSaysWhenTheStoreIsDown: with nothing to write, the probe
// finds the store gone and the engine says it is not ready (before, it said
// ok until some write failed); it is ready again by itself once the store
// answers.
func TestIdleEngineSaysWhenTheStoreIsDown(t *testing.T) {
	h := newHarness(t)
	if err := h.submit("before", "a", 1); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	h.st.mu.Lock()
	h.st.down = errors.New("fake: connection refused")
	h.st.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for hl := h.e.Health(); hl.Ready || !strings.Contains(hl.Reason, "check the database"); hl = h.e.Health() {
		if time.Now().After(deadline) {
			t.Fatalf("health of an idle engine whose store is down: %+v", hl)
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.st.mu.Lock()
	h.st.down = nil
	h.st.mu.Unlock()
	h.waitReady()
	if err := h.submit("after", "a", 1); err != nil {
		t.Fatalf("a submission once the store is back: %v", err)
	}
}

// TestHungStoreDoesNotHangTheEngine: the store hangs (a paused database
// host): its commit times out, and the reads that undo it and the probe
// block until their context ends. The engine answers the caller with
// ErrUnavailable and says it is not ready, rather than waiting on the
// reread for ever with health ok (before: the reread had no deadline), and
// recovers by itself once the store answers.
func TestHungStoreDoesNotHangTheEngine(t *testing.T) {
	old := storeReadTimeout
	storeReadTimeout = 50 * time.Millisecond
	t.Cleanup(func() { storeReadTimeout = old })
	h := newHarness(t)
	ctx := context.Background()
	if err := h.submit("before", "a", 1); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	h.st.mu.Lock()
	h.st.hang = true
	h.st.mu.Unlock()
	answered := make(chan error, 1)
	go func() { answered <- h.submit("hung", "a", 1) }()
	select {
	case err := <-answered:
		if !errors.Is(err, ErrUnconfirmed) || !errors.Is(err, ErrUnavailable) {
			t.Fatalf("a submission whose commit timed out: %v, want ErrUnconfirmed (it may have been stored)", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a submission while the store hangs got no answer in 5 s")
	}
	if hl := h.e.Health(); hl.Ready {
		t.Fatalf("health while the store hangs: %+v", hl)
	}
	if _, err := h.e.Task(ctx, "before"); err != nil {
		t.Fatalf("a read while the store hangs: %v", err)
	}
	h.storeAnswersAgain()
	if _, err := h.e.Task(ctx, "hung"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("the refused submission is there: %v", err)
	}
	h.checkRecoveryEqualsLive("after the store answered again")
}

// TestCallerDeadlineWhileStoreHangs: the store hangs and its own deadlines
// are long (a real database's 10 s each, four in a row). A caller whose
// context ends first, as an HTTP change request's does before its
// connection's write deadline, is answered then with ErrUnconfirmed (queued,
// may still be stored), not left waiting; a caller whose deadline passes
// before the loop takes its change gets ErrUnavailable (nothing changed).
func TestCallerDeadlineWhileStoreHangs(t *testing.T) {
	old := storeReadTimeout
	storeReadTimeout = 3 * time.Second
	t.Cleanup(func() { storeReadTimeout = old })
	h := newHarness(t)
	if err := h.submit("before", "a", 1); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	h.st.mu.Lock()
	h.st.hang = true
	h.st.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := h.e.Submit(ctx, "test", model.TaskSpec{Name: "hung", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 1, Command: []string{"true"}})
	if took := time.Since(start); !errors.Is(err, ErrUnconfirmed) || took > 2*time.Second {
		t.Fatalf("a submission whose caller's deadline passed while the store hangs: %v after %s, want ErrUnconfirmed at once", err, took)
	}
	gone, cancel2 := context.WithTimeout(context.Background(), 0)
	defer cancel2()
	<-gone.Done()
	_, err = h.e.Submit(gone, "test", model.TaskSpec{Name: "late", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 1, Command: []string{"true"}})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a submission whose deadline had passed: %v, want ErrUnavailable or ErrUnconfirmed", err)
	}
	h.storeAnswersAgain()
	h.checkRecoveryEqualsLive("after the store answered again")
}

// storeAnswersAgain ends the store's hang, waits for the engine to be
// ready by itself, and checks that a submission is taken.
func (h *harness) storeAnswersAgain() {
	h.t.Helper()
	h.st.mu.Lock()
	h.st.hang = false
	h.st.mu.Unlock()
	h.waitReady()
	if err := h.submit("after", "b", 1); err != nil {
		h.t.Fatalf("a submission once the store answers: %v", err)
	}
	h.quiesce()
}
