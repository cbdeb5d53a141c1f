package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStoreMigrate moves an installation from SQLite to PostgreSQL with the
// CLI: a server on SQLite takes tasks and stops; `taskgov store migrate`
// copies the database and reports matching counts; a server on PostgreSQL
// then serves the same tasks (finished ones with their events) to the same
// admin token. Bad arguments are refused and change nothing.
func TestStoreMigrate(t *testing.T) {
	f := newPGFixture(t, `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]
teams: [{name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}]
`)
	dsn, bin, dir, cfg := f.dsn, f.bin, f.dir, f.cfg
	data := filepath.Join(dir, "sqlite")
	s := startServer(t, bin, data, anyPort, "--config", cfg)
	for _, name := range []string{"one", "two", "three"} {
		task := map[string]any{"name": name, "team": "alpha", "instanceType": "ml.p5.48xlarge", "command": []string{"true"}}
		if code, err := s.call("POST", "/api/v1/tasks", task, nil); err != nil || code != 201 {
			t.Fatalf("submit %s: %d %v", name, code, err)
		}
	}
	waitFor(t, 20*time.Second, func() bool {
		var v struct{ State string }
		_, _ = s.call("GET", "/api/v1/tasks/three", nil, &v)
		return v.State == "Succeeded"
	})
	s.stop()

	migrate := func(args ...string) (string, error) {
		out, err := exec.Command(bin, append([]string{"store", "migrate"}, args...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := migrate("--from", filepath.Join(data, "taskgov.db"), "--to", dsn); err == nil || !strings.Contains(out, "sqlite:PATH") {
		t.Fatalf("a --from without sqlite: was taken: %v %s", err, out)
	}
	if out, err := migrate("--from", "sqlite:"+filepath.Join(data, "taskgov.db"), "--to", "mysql://x"); err == nil || !strings.Contains(out, "--to") {
		t.Fatalf("a --to that is no PostgreSQL DSN was taken: %v %s", err, out)
	}
	out, err := migrate("--from", "sqlite:"+filepath.Join(data, "taskgov.db"), "--to", dsn)
	if err != nil || !strings.Contains(out, "counts match") || !strings.Contains(out, "tasks 3") {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	t.Logf("%s", strings.TrimSpace(out))
	if out, err := migrate("--from", "sqlite:"+filepath.Join(data, "taskgov.db"), "--to", dsn); err == nil || !strings.Contains(out, "empty database") {
		t.Fatalf("a second migrate into the same database: %v %s", err, out)
	}

	// The admin keeps the token; the moved database knows it.
	pgData := filepath.Join(dir, "pg")
	_ = os.MkdirAll(pgData, 0o700)
	_ = os.WriteFile(filepath.Join(pgData, "admin.token"), []byte(s.token+"\n"), 0o600)
	p := startServer(t, bin, pgData, anyPort, "--store", dsn)
	defer p.stop()
	var got struct{ State string }
	if code, err := p.call("GET", "/api/v1/tasks/three", nil, &got); err != nil || code != 200 || got.State != "Succeeded" {
		t.Fatalf("the moved task on PostgreSQL: %d %v %+v", code, err, got)
	}
	var evs struct {
		Events []struct{ Kind string } `json:"events"`
	}
	if code, err := p.call("GET", "/api/v1/tasks/three/events", nil, &evs); err != nil || code != 200 || len(evs.Events) < 2 {
		t.Fatalf("the moved task's events: %d %v %+v", code, err, evs)
	}
	// A lost admin token is replaced straight in the database.
	tok, err := exec.Command(bin, "store", "admin-token", "--store", dsn).Output()
	if err != nil {
		t.Fatal(err)
	}
	p.token = strings.TrimSpace(string(tok))
	if code, err := p.call("POST", "/api/v1/tasks", map[string]any{"name": "four", "team": "alpha", "instanceType": "ml.p5.48xlarge",
		"command": []string{"true"}}, nil); err != nil || code != 201 {
		t.Fatalf("a new task after the move: %d %v", code, err)
	}
}
