package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/postgres/pgtest"
)

// TestRestartedReplicaKillsItsStrays: a PostgreSQL leader with the local
// executor is killed with SIGKILL while its pod has a child; the child
// outlives it (only the pod's own process dies with the server) while the
// new leader runs the task again. When the killed replica starts again it
// kills that child before it stands by. Before, a standby swept nothing:
// the child ran on beside the new leader's run until this replica led again.
func TestRestartedReplicaKillsItsStrays(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and server processes")
	}
	pg := pgtest.Start(t)
	dsn := pg.NewDatabase(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	_ = os.WriteFile(cfg, []byte(`
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]
teams: [{name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}]
`), 0o644)
	aDir := filepath.Join(dir, "a")
	a := startPGReplica(t, bin, aDir, dsn, cfg)
	a.waitStatus(t, "/readyz", 200, 30*time.Second)
	b := startPGReplica(t, bin, filepath.Join(dir, "b"), dsn, cfg)
	waitFor(t, 10*time.Second, func() bool { return b.waitStatus(t, "/readyz", 503, time.Second)["leader"] == a.url })
	tok, err := os.ReadFile(filepath.Join(aDir, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	a.token, b.token = strings.TrimSpace(string(tok)), strings.TrimSpace(string(tok))

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
	a = startPGReplica(t, bin, aDir, dsn, cfg) // answers /healthz once standing by
	a.waitStatus(t, "/readyz", 503, 10*time.Second)
	if alive(children[0]) {
		t.Fatalf("the restarted replica stands by while its earlier pod's child (pid %d) still runs", children[0])
	}
}
