package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestStoreMigrateLive moves a running installation: while a server on
// SQLite takes submissions from 4 clients, `store migrate` copies a
// snapshot and says the move is unfinished; a server on PostgreSQL refuses
// the database, and --finish refuses while the SQLite server runs. With the
// clients and the server stopped, --finish copies the rest, and the server
// on PostgreSQL has every acknowledged task.
func TestStoreMigrateLive(t *testing.T) {
	f := newPGFixture(t, `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]
teams: [{name: alpha, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 0}]}]
`)
	dsn, bin, dir, cfg := f.dsn, f.bin, f.dir, f.cfg
	data := filepath.Join(dir, "sqlite")
	s := startServer(t, bin, data, anyPort, "--config", cfg)
	var acked sync.Map
	var n atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("c%d-%d", c, i)
				task := map[string]any{"name": name, "team": "alpha", "instanceType": "ml.p5.48xlarge", "command": []string{"true"}}
				if code, err := s.call("POST", "/api/v1/tasks", task, nil); err == nil && code == 201 {
					acked.Store(name, true)
					n.Add(1)
				}
			}
		}()
	}
	waitFor(t, 30*time.Second, func() bool { return n.Load() >= 100 })

	src := "sqlite:" + filepath.Join(data, "taskgov.db")
	migrate := func(args ...string) (string, error) {
		out, err := exec.Command(bin, append([]string{"store", "migrate", "--from", src, "--to", dsn}, args...)...).CombinedOutput()
		return string(out), err
	}
	out, err := migrate()
	pid := fmt.Sprintf("pid %d", s.cmd.Process.Pid)
	if err != nil || !strings.Contains(out, "moved a snapshot") || !strings.Contains(out, pid) || !strings.Contains(out, "--finish") {
		t.Fatalf("migrating a live installation: %v\n%s", err, out)
	}
	t.Logf("%s", strings.TrimSpace(out))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	refused, err := exec.CommandContext(ctx, bin, "server", "--store", dsn, "--data-dir", filepath.Join(dir, "early"), "--listen", anyPort).CombinedOutput()
	if err == nil || !strings.Contains(string(refused), "unfinished move from SQLite") {
		t.Fatalf("a server on the unfinished move: %v\n%s", err, refused)
	}
	if out, err := migrate("--finish"); err == nil || !strings.Contains(out, pid) || !strings.Contains(out, "stop it first") {
		t.Fatalf("--finish while the SQLite server runs: %v\n%s", err, out)
	}

	close(stop)
	wg.Wait()
	s.stop()
	out, err = migrate("--finish")
	if err != nil || !strings.Contains(out, "counts match") {
		t.Fatalf("--finish: %v\n%s", err, out)
	}
	t.Logf("%d acknowledged submissions; %s", n.Load(), strings.TrimSpace(out))

	pgData := filepath.Join(dir, "pg")
	_ = os.MkdirAll(pgData, 0o700)
	_ = os.WriteFile(filepath.Join(pgData, "admin.token"), []byte(s.token+"\n"), 0o600)
	p := startServer(t, bin, pgData, anyPort, "--store", dsn)
	defer p.stop()
	missing := 0
	acked.Range(func(k, _ any) bool {
		if code, err := p.call("GET", "/api/v1/tasks/"+k.(string), nil, nil); err != nil || code != 200 {
			missing++
		}
		return true
	})
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged tasks are missing on PostgreSQL", missing, n.Load())
	}
}
