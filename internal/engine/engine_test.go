package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlite"
)

// TestFailedCommitMidBatch: a commit that fails half-way through a batch
// (two submissions and a pod exit) leaves memory equal to disk; the
// callers get ErrUnavailable, nothing hangs, the engine stays up, the exit
// is applied once writes succeed again, and the engine serves as before.
func TestFailedCommitMidBatch(t *testing.T) {
	h := newHarness(t)
	if err := h.submit("first", "a", 1); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	if got := h.x.running(); len(got) != 1 {
		t.Fatalf("running: %v", got)
	}
	h.checkRecoveryEqualsLive("before")

	h.st.setFull(3) // this batch, and two retries
	h.x.exit("first", 0, false, nil)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, name := range []string{"second", "third"} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = h.submit(name, "b", 1) }()
	}
	wg.Wait()
	for _, err := range errs {
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "disk full") {
			t.Fatalf("a submission during a failed commit: %v", err)
		}
	}
	if hl := h.e.Health(); hl.Ready || !strings.Contains(hl.Reason, "disk full") {
		t.Fatalf("health while writes fail: %+v", hl)
	}
	h.checkRecoveryEqualsLive("after the failed commit")

	h.waitReady()
	h.checkRecoveryEqualsLive("recovered")
	if r, _ := h.st.Task(context.Background(), "first"); r.State != model.StateSucceeded {
		t.Fatalf("the exit from the failed batch was not applied again: %+v", r)
	}
	if _, err := h.st.Task(context.Background(), "second"); err == nil {
		t.Fatal("a refused submission was stored")
	}
	if err := h.submit("second", "b", 1); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
	h.quiesce()
	h.checkRecoveryEqualsLive("end")
	if h.e.Err() != nil {
		t.Fatal(h.e.Err())
	}
}

// TestFatalFaultStopsTheEngine: a fatal fault (corruption, the file gone)
// stops the loop: the caller is told, later calls get ErrStopped, Err says
// why, readiness fails, and Shutdown returns at once.
func TestFatalFaultStopsTheEngine(t *testing.T) {
	h := newHarness(t)
	fatal := &model.Fault{Kind: model.FaultFatal, What: "database corrupt", Err: errors.New("fake: malformed")}
	h.st.mu.Lock()
	h.st.fatal = fatal
	h.st.mu.Unlock()
	if err := h.submit("x", "a", 1); !errors.Is(err, ErrStopped) {
		t.Fatalf("a submission during a fatal fault: %v", err)
	}
	select {
	case <-h.e.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the engine did not stop")
	}
	if !errors.Is(h.e.Err(), fatal) || h.e.Health().Ready {
		t.Fatalf("err %v, health %+v", h.e.Err(), h.e.Health())
	}
	if err := h.submit("y", "a", 1); !errors.Is(err, ErrStopped) {
		t.Fatalf("after the stop: %v", err)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = h.e.Shutdown(ctx)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("shutdown after a fatal fault took %s", d)
	}
}

// TestProbeFindsFatalFaultWhileIdle: with nothing to write, the periodic
// probe still finds a fatal fault and stops the engine.
func TestProbeFindsFatalFaultWhileIdle(t *testing.T) {
	h := newHarness(t)
	h.quiesce()
	h.st.mu.Lock()
	h.st.fatal = &model.Fault{Kind: model.FaultFatal, What: "database file removed", Err: sqlite.ErrFileGone}
	h.st.mu.Unlock()
	select {
	case <-h.e.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the probe did not stop the engine")
	}
	if !errors.Is(h.e.Err(), sqlite.ErrFileGone) {
		t.Fatal(h.e.Err())
	}
}

// TestExitsOutOfOrderAndTwice: a gang's pods report their exits out of rank
// order and each twice; the task finishes once, and a stale exit of an
// earlier run does not end the next one.
func TestExitsOutOfOrderAndTwice(t *testing.T) {
	h := newHarness(t)
	_, err := h.e.Submit(context.Background(), "test", model.TaskSpec{Name: "gang", Team: "a", InstanceType: "ml.p5.48xlarge",
		Nodes: 2, Command: []string{"true"}, AutoResume: true, MaxRetry: 1})
	if err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	reverse := func(evs []executor.Event) {
		for i, j := 0, len(evs)-1; i < j; i, j = i+1, j-1 {
			evs[i], evs[j] = evs[j], evs[i]
		}
	}
	h.x.exit("gang", 3, true, reverse) // fails: requeued (a retry is left) and started again
	h.quiesce()
	time.Sleep(model.RetryBackoff(1) + 100*time.Millisecond) // once its retry backoff has passed
	h.quiesce()
	h.checkRecoveryEqualsLive("after the failed run")
	r, _ := h.st.Task(context.Background(), "gang")
	if r.State != model.StateRunning || r.Retries != 1 {
		t.Fatalf("after a failed run with a retry left: %+v", r)
	}
	h.x.events <- executor.Event{Task: "gang", Rank: 0, Run: 0, Exited: true, ExitCode: 1} // stale, of the first run
	h.quiesce()
	if r, _ := h.st.Task(context.Background(), "gang"); r.State != model.StateRunning {
		t.Fatalf("a stale exit ended the new run: %+v", r)
	}
	h.x.exit("gang", 0, true, reverse)
	h.quiesce()
	h.checkRecoveryEqualsLive("done")
	r, _ = h.st.Task(context.Background(), "gang")
	if r.State != model.StateSucceeded {
		t.Fatalf("final: %+v", r)
	}
	n := 0
	for _, ev := range h.st.st.events {
		if ev.Task == "gang" && ev.Kind == "Succeeded" {
			n++
		}
	}
	if n != 1 || len(h.x.violations) > 0 {
		t.Fatalf("%d Succeeded events; violations %v", n, h.x.violations)
	}
}

// TestStartFailure: a start the executor refuses fails the task with the
// reason, and frees its nodes for the next one.
func TestStartFailure(t *testing.T) {
	h := newHarness(t)
	h.x.mu.Lock()
	h.x.failStart["bad"] = true
	h.x.mu.Unlock()
	if err := h.submit("bad", "a", 2); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	r, _ := h.st.Task(context.Background(), "bad")
	if r.State != model.StateFailed || !strings.Contains(r.Message, "could not start") {
		t.Fatalf("%+v", r)
	}
	if err := h.submit("good", "a", 2); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	h.checkRecoveryEqualsLive("end")
	if got := h.x.running(); len(got) != 1 || got[0] != "good" {
		t.Fatalf("running: %v", got)
	}
}

// TestDeleteTeamRevokesTokensInItsCommit: deleting a team stores the
// revocation of its tokens in the commit that stores the cluster without
// it; when that commit fails, neither is stored and the team stays.
func TestDeleteTeamRevokesTokensInItsCommit(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	stored := func() (revoked []string, hasB bool) {
		h.st.mu.Lock()
		defer h.st.mu.Unlock()
		for _, tm := range h.st.st.cluster.Teams {
			hasB = hasB || tm.Name == "b"
		}
		return slices.Clone(h.st.st.revoked), hasB
	}
	h.st.failNext(errDiskFull)
	if err := h.e.DeleteTeam(ctx, "admin", "b"); err == nil {
		t.Fatal("a failed commit deleted the team")
	}
	if revoked, hasB := stored(); len(revoked) != 0 || !hasB {
		t.Fatalf("after a failed commit: revoked %v, team stored %v", revoked, hasB)
	}
	h.waitReady()
	if err := h.e.DeleteTeam(ctx, "admin", "b"); err != nil {
		t.Fatal(err)
	}
	if revoked, hasB := stored(); !slices.Equal(revoked, []string{"b"}) || hasB {
		t.Fatalf("after the delete: revoked %v, team stored %v", revoked, hasB)
	}
}
