package engine

import (
	"context"
	"errors"
	"io"
	"log/slog"
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
	// An older key, while k2's task lives: the name's rule.
	if _, _, err := e2.SubmitOnce(ctx, "test", spec, "k1"); !errors.Is(err, model.ErrConflict) {
		t.Fatalf("an older key against a live task of the name: %v", err)
	}
	if n := len(h.st.st.tasks); n != 2 {
		t.Fatalf("%d tasks stored, want 2", n)
	}
}
