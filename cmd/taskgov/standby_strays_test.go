package main

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestRestartedReplicaKillsItsStrays: a PostgreSQL leader with the local
// executor is killed with SIGKILL while its pod has a child; the child
// outlives it (only the pod's own process dies with the server) while the
// new leader runs the task again. When the killed replica starts again it
// kills that child before it stands by, and only that: the new leader's run
// of the task, on the same machine, goes on. Before, a standby swept
// nothing: the child ran on beside the new leader's run until this replica
// led again.
func TestRestartedReplicaKillsItsStrays(t *testing.T) {
	f := newPGFixture(t, `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]
teams: [{name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}]
`)
	aDir, bDir := filepath.Join(f.dir, "a"), filepath.Join(f.dir, "b")
	a, b := f.startPair(t, f.dsn)

	body := map[string]any{"name": "long", "team": "alpha", "instanceType": "ml.p5.48xlarge",
		"command": []string{"sh", "-c", `sleep 300 & echo $! > "$TASKGOV_CHECKPOINT_DIR/child"; wait`}}
	if code, err := a.call("POST", "/api/v1/tasks", body, nil); err != nil || code != 201 {
		t.Fatalf("submit: %d %v", code, err)
	}
	var children []int
	waitFor(t, 15*time.Second, func() bool { children = runningPIDs(aDir, "child"); return len(children) == 1 })
	t.Cleanup(func() { _ = syscall.Kill(children[0], syscall.SIGKILL) })

	_ = a.cmd.Process.Signal(syscall.SIGKILL)
	_ = a.cmd.Wait()
	b.waitStatus(t, "/readyz", 200, 30*time.Second)
	if !alive(children[0]) {
		t.Fatal("the pod's child died with the leader; the test did not exercise a stray")
	}
	// The new leader's run of the same task: its own child, in its own
	// data directory.
	var theirs []int
	waitFor(t, 30*time.Second, func() bool { theirs = runningPIDs(bDir, "child"); return len(theirs) == 1 })
	t.Cleanup(func() { _ = syscall.Kill(theirs[0], syscall.SIGKILL) })
	if theirs[0] == children[0] {
		t.Fatalf("the new leader's run reports the killed leader's child (pid %d)", theirs[0])
	}

	a = startPGReplica(t, f.bin, aDir, f.dsn, f.cfg) // answers /healthz once standing by
	a.waitStatus(t, "/readyz", 503, 10*time.Second)
	if alive(children[0]) {
		t.Fatalf("the restarted replica stands by while its earlier pod's child (pid %d) still runs", children[0])
	}
	// Its sweep took only its own strays: the new leader's run goes on.
	if !alive(theirs[0]) {
		t.Fatalf("the restarted replica's sweep killed the new leader's run of the task (its child, pid %d)", theirs[0])
	}
	var v struct{ State string }
	if code, err := b.call("GET", "/api/v1/tasks/long", nil, &v); err != nil || code != 200 || v.State != "Running" {
		t.Fatalf("the task after the sweep: %d %v, state %q; want Running on the new leader", code, err, v.State)
	}
}
