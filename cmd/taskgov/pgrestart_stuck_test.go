package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/taskgov/taskgov/internal/testwait"
)

// TestRestartBesideAStuckCommit: a server on PostgreSQL (no standby) is
// killed while the database still holds its last commit, sent whole and
// waiting on a lock (as on a paused host, or behind another session). The
// server that replaces it on the same data directory waits, before it
// reads the store, until that transaction has ended (it says so in its
// log), then sees the task and hands out the next sequence number: before,
// it read at once, the late COMMIT landed after, and the next submission
// took the same sequence number (a 503; postgres/startsettle.go).
func TestRestartBesideAStuckCommit(t *testing.T) {
	f := newPGFixture(t, `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 2}]
teams: [{name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}]
`)
	ctx := context.Background()
	dsnFile := filepath.Join(f.dir, "dsn")
	if err := os.WriteFile(dsnFile, []byte(f.dsn+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(f.dir, "data")
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	args := []string{"--config", f.cfg, "--store-dsn-file", dsnFile}
	job := func(name string) map[string]any {
		return map[string]any{"name": name, "team": "alpha", "instanceType": "ml.p5.48xlarge", "command": []string{"true"}}
	}
	first := startServer(t, f.bin, dataDir, "127.0.0.1:0", args...)
	defer first.stop()
	if code, err := first.call("POST", "/api/v1/tasks", job("before"), nil); err != nil || code != 201 {
		t.Fatalf("submit: %d %v", code, err)
	}

	// The test's uncommitted row takes the next sequence number: the
	// server's next commit waits on it inside the database.
	db, err := pgx.Connect(ctx, f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	var seq int64
	if err := db.QueryRow(ctx, `SELECT max(seq) FROM tasks`).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	hold, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TEMP TABLE held ON COMMIT DROP AS SELECT * FROM tasks WHERE seq = $1`,
		`UPDATE held SET seq = seq + 1, name = 'held-by-test'`, `INSERT INTO tasks SELECT * FROM held`} {
		var qargs []any
		if strings.Contains(q, "$1") {
			qargs = append(qargs, seq)
		}
		if _, err := hold.Exec(ctx, q, qargs...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	released := false
	release := func() {
		if !released {
			released = true
			if err := hold.Rollback(ctx); err != nil {
				t.Error(err)
			}
		}
	}
	defer release()
	go func() { _, _ = first.call("POST", "/api/v1/tasks", job("during"), nil) }()
	waitFor(t, 30*time.Second, func() bool {
		var waiting bool
		err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
			AND application_name = 'taskgov' AND wait_event_type = 'Lock')`).Scan(&waiting)
		return err == nil && waiting
	})
	// The server dies with its commit sent: no cancel request, no ROLLBACK.
	_ = first.cmd.Process.Kill()
	_ = first.cmd.Wait()

	logPath := filepath.Join(dataDir, "server.log")
	from := logSize(logPath)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(f.bin, append([]string{"server", "--data-dir", dataDir, "--listen", "127.0.0.1:0", "--task-user", "server"}, args...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	newLog := func() string {
		b, _ := os.ReadFile(logPath)
		return string(b[min(int64(len(b)), from):])
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	waitFor(t, 30*time.Second, func() bool {
		return strings.Contains(newLog(), "waiting for other sessions' open transactions to end before reading the store")
	})
	if strings.Contains(newLog(), listeningLine) {
		t.Fatalf("the new server serves while the old commit is stuck; log:\n%s", newLog())
	}
	release() // the old backend's insert goes on, and the COMMIT it holds lands
	second := &serverProc{t: t, cmd: cmd, url: "http://" + boundAddr(t, logPath, from, testwait.Scale(60*time.Second)), token: first.token}
	waitFor(t, 60*time.Second, func() bool {
		resp, err := http.Get(second.url + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	if code, err := second.call("POST", "/api/v1/tasks", job("after"), nil); err != nil || code != 201 {
		t.Fatalf("a submission after the restart: %d %v (a duplicate sequence number?); log:\n%s", code, err, newLog())
	}
	var list struct {
		Tasks []struct {
			Name string
			Seq  int64
		}
	}
	if code, err := second.call("GET", "/api/v1/tasks", nil, &list); err != nil || code != 200 {
		t.Fatalf("list: %d %v", code, err)
	}
	count := map[string]int{}
	for _, x := range list.Tasks {
		count[x.Name]++
	}
	if count["before"] != 1 || count["during"] != 1 || count["after"] != 1 {
		t.Fatalf("tasks after the restart: %v; want before, during (the late commit) and after once each", count)
	}
	if !strings.Contains(newLog(), "other sessions' transactions ended") {
		t.Errorf("the new server's log does not say the wait ended:\n%s", newLog())
	}
}
