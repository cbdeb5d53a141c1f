package engine

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/model"
)

// TestRetriedSubmissionGetsItsTask: a submission retried with its
// idempotency key gets the task it made, while that task lives, once it
// has finished, and after a server restart; another team's submission of
// the name and key is refused as any other; a new key makes a new task.
func TestRetriedSubmissionGetsItsTask(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	spec := model.TaskSpec{Name: "once", Team: "a", InstanceType: "ml.p5.48xlarge", Command: []string{"true"}}
	key := "k1"
	submit := func(e *Engine, s model.TaskSpec, wantReplay bool, wantSeq int64) model.TaskRecord {
		t.Helper()
		r, replayed, err := e.SubmitOnce(ctx, "test", s, key)
		if err != nil || replayed != wantReplay || (wantSeq != 0 && r.Seq != wantSeq) {
			t.Fatalf("submit %s/%s key %q: record %d replayed %v err %v; want replayed %v, record %d",
				s.Team, s.Name, key, r.Seq, replayed, err, wantReplay, wantSeq)
		}
		return r
	}
	first := submit(h.e, spec, false, 0)
	submit(h.e, spec, true, first.Seq) // while it lives
	h.quiesce()
	if !h.x.exit("once", 0, false, nil) {
		t.Fatal("the task did not start")
	}
	h.quiesce()
	if r := submit(h.e, spec, true, first.Seq); r.State != model.StateSucceeded {
		t.Fatalf("the finished task's record, as it stands: %+v", r)
	}

	// A restart: a new engine on the same store.
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := h.e.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	var c model.Cluster
	if err := config.Decode([]byte(harnessCluster), &c); err != nil {
		t.Fatal(err)
	}
	e2, err := Open(ctx, Options{Store: h.st, Executor: newFakeExec(), Cluster: &c,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), RetryEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e2.Shutdown(sctx) })
	submit(e2, spec, true, first.Seq)

	other := spec
	other.Team = "b"
	if _, _, err := e2.SubmitOnce(ctx, "test", other, key); !errors.Is(err, model.ErrConflict) {
		t.Fatalf("another team's submission of the name and key: %v", err)
	}
	key = "k2"
	second := submit(e2, spec, false, 0)
	if second.Seq <= first.Seq {
		t.Fatalf("a new key's task: %+v", second)
	}
	// An older key, while k2's task lives: the older key's task (it was
	// answered 409 before, the newest task alone being matched).
	key = "k1"
	submit(e2, spec, true, first.Seq)
	if n := len(h.st.st.tasks); n != 2 {
		t.Fatalf("%d tasks stored, want 2", n)
	}
}

// TestRetryOfAnOlderSubmission: a key was matched against the newest task
// of the name only, so the retry of a submission whose name had since been
// used again (and whose task had finished) ran the job a second time. Now
// it gets its own task back.
func TestRetryOfAnOlderSubmission(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	spec := model.TaskSpec{Name: "again", Team: "a", InstanceType: "ml.p5.48xlarge", Command: []string{"true"}}
	var made []model.TaskRecord
	for _, key := range []string{"first", "second"} {
		r, replayed, err := h.e.SubmitOnce(ctx, "test", spec, key)
		if err != nil || replayed {
			t.Fatalf("submission %s: %v %v", key, replayed, err)
		}
		made = append(made, r)
		h.quiesce()
		if !h.x.exit("again", 0, false, nil) {
			t.Fatal("the task did not start")
		}
		h.quiesce()
	}
	r, replayed, err := h.e.SubmitOnce(ctx, "test", spec, "first")
	if err != nil || !replayed || r.Seq != made[0].Seq || r.State != model.StateSucceeded {
		t.Fatalf("the first submission retried after the name's second task finished: record %+v replayed %v err %v", r, replayed, err)
	}
	if n := len(h.st.st.tasks); n != 2 {
		t.Fatalf("%d tasks stored, want 2", n)
	}
}

// TestKeyReusedWithAnotherSpec: a key that comes again with a different
// submission was answered with its first task, the new spec silently
// ignored; it is refused (ErrKeyReused), naming the key, and nothing is
// written. The same submission (a map in another order) is still a retry.
func TestKeyReusedWithAnotherSpec(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	spec := model.TaskSpec{Name: "keyed", Team: "a", InstanceType: "ml.p5.48xlarge", Command: []string{"sleep", "30"},
		Env: map[string]string{"A": "1", "B": "2"}}
	first, _, err := h.e.SubmitOnce(ctx, "test", spec, "k")
	if err != nil {
		t.Fatal(err)
	}
	same := spec
	same.Env = map[string]string{"B": "2", "A": "1"}
	if r, replayed, err := h.e.SubmitOnce(ctx, "test", same, "k"); err != nil || !replayed || r.Seq != first.Seq {
		t.Fatalf("the same submission again: %+v %v %v", r, replayed, err)
	}
	h.quiesce()
	other := spec
	other.Command = []string{"sleep", "60"}
	_, _, err = h.e.SubmitOnce(ctx, "test", other, "k")
	if !errors.Is(err, model.ErrKeyReused) || !strings.Contains(err.Error(), `"k"`) || !strings.Contains(err.Error(), "different request body") {
		t.Fatalf("the key with another command: %v", err)
	}
	h.quiesce()
	if n := len(h.st.st.tasks); n != 1 || len(h.st.st.tasks[0].Spec.Command) != 2 || h.st.st.tasks[0].Spec.Command[1] != "30" {
		t.Fatalf("stored after the refused retry: %+v", h.st.st.tasks)
	}
}

// TestKeyCheckStoreUnreadable: if the store cannot be read while a key is
// looked for among the name's earlier tasks, the submission is refused as
// unavailable and nothing is written; once it reads again, the retry gets
// its task.
func TestKeyCheckStoreUnreadable(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	spec := model.TaskSpec{Name: "unread", Team: "a", InstanceType: "ml.p5.48xlarge", Command: []string{"true"}}
	first, _, err := h.e.SubmitOnce(ctx, "test", spec, "k")
	if err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	if !h.x.exit("unread", 0, false, nil) {
		t.Fatal("the task did not start")
	}
	h.quiesce()
	h.st.mu.Lock()
	h.st.readErr = errDiskFull
	stored := len(h.st.st.tasks)
	h.st.mu.Unlock()
	if _, _, err := h.e.SubmitOnce(ctx, "test", spec, "k"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a retry while the store cannot be read: %v", err)
	}
	h.quiesce()
	h.st.mu.Lock()
	h.st.readErr = nil
	n := len(h.st.st.tasks)
	h.st.mu.Unlock()
	if n != stored {
		t.Fatalf("%d tasks stored after the refused retry, want %d", n, stored)
	}
	if r, replayed, err := h.e.SubmitOnce(ctx, "test", spec, "k"); err != nil || !replayed || r.Seq != first.Seq {
		t.Fatalf("the retry once the store reads again: %+v %v %v", r, replayed, err)
	}
}
