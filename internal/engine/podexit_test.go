package engine

import (
	"context"
	"testing"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
)

// TestExitReportedTwiceWhileOthersRun: an executor that reports one pod's
// exit twice (a watch that re-lists) must not end a gang whose other pod
// still runs, or its nodes would be given to the next task.
func TestExitReportedTwiceWhileOthersRun(t *testing.T) {
	h := newHarness(t)
	if err := h.submit("gang", "a", 2); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	for range 2 {
		h.x.events <- executor.Event{Task: "gang", Rank: 1, Run: 0, Exited: true, ExitCode: 0}
	}
	h.quiesce()
	if r, _ := h.st.Task(context.Background(), "gang"); r.State != model.StateRunning {
		t.Fatalf("pod 0 still runs, but the task is %s: %s", r.State, r.Message)
	}
	h.checkRecoveryEqualsLive("one pod exited, reported twice")
	h.x.events <- executor.Event{Task: "gang", Rank: 0, Run: 0, Exited: true, ExitCode: 0}
	h.quiesce()
	if r, _ := h.st.Task(context.Background(), "gang"); r.State != model.StateSucceeded {
		t.Fatalf("both pods exited 0, but the task is %s: %s", r.State, r.Message)
	}
}

// TestPodFailureShownDuringGrace: when one pod of a gang fails, the others
// get their grace period; meanwhile the task's stored and published record
// already says which pod failed, and the task fails with that reason once
// the last pod has exited.
func TestPodFailureShownDuringGrace(t *testing.T) {
	h := newHarness(t)
	h.x.mu.Lock()
	h.x.slowStop["gang"] = true
	h.x.mu.Unlock()
	if err := h.submit("gang", "a", 2); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	h.x.events <- executor.Event{Task: "gang", Rank: 1, Run: 0, Exited: true, ExitCode: 3}
	h.quiesce()
	const why = "pod 1 exited with code 3"
	r, _ := h.st.Task(context.Background(), "gang")
	if r.State != model.StateRunning || r.Message != why {
		t.Fatalf("during the others' grace period the store holds %s %q, want Running %q", r.State, r.Message, why)
	}
	if v, ok := h.e.View().Task("gang"); !ok || v.Message != why {
		t.Fatalf("during the others' grace period readers see %q, want %q", v.Message, why)
	}
	h.x.mu.Lock()
	stopped := len(h.x.stopped)
	h.x.mu.Unlock()
	if stopped != 1 {
		t.Fatalf("the other pod was not told to stop (%d stops)", stopped)
	}
	h.x.exit("gang", -1, false, nil) // the grace period ends: every pod reports, pod 1 again
	h.quiesce()
	r, _ = h.st.Task(context.Background(), "gang")
	if r.State != model.StateFailed || r.Message != "failed: "+why {
		t.Fatalf("after the last pod exited: %s %q", r.State, r.Message)
	}
}
