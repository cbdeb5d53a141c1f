package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/postgres/pgtest"
)

// TestLoadtestStores runs the loadtest on SQLite and on a throwaway
// PostgreSQL in turns, at a small scale: each run reports its store, the
// load average, the figures and the CPU used, and leaves the server's CPU
// profile of the timed phase under --profile-dir.
func TestLoadtestStores(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real server processes")
	}
	stores := "sqlite"
	if _, ok := pgtest.Bin(); ok {
		stores += "," + tempPostgres
	} else {
		t.Log(pgtest.HowTo + "; measuring SQLite only")
	}
	bin := buildBinary(t)
	prof := t.TempDir()
	out, err := exec.Command(bin, "loadtest", "--tasks", "200", "--clients", "4", "--store", stores, "--profile-dir", prof).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, st := range strings.Split(stores, ",") {
		name, label := st, "store sqlite,"
		if st == tempPostgres {
			name, label = "postgres", "store postgres (throwaway cluster"
		}
		if !strings.Contains(string(out), "round 1, "+label) {
			t.Errorf("output lacks the %s run:\n%s", st, out)
		}
		if fi, err := os.Stat(filepath.Join(prof, name+"-1", "server-1.prof")); err != nil || fi.Size() == 0 {
			t.Errorf("no CPU profile of the %s run: %v", st, err)
		}
	}
	if n := strings.Count(string(out), "inputs on average, a commit"); n != len(strings.Split(stores, ",")) {
		t.Errorf("%d runs say how their commits went, want one per store:\n%s", n, out)
	}
	if n := strings.Count(string(out), "acknowledged/s"); n != len(strings.Split(stores, ",")) {
		t.Errorf("%d results, want one per store:\n%s", n, out)
	}
	if st := strings.Split(stores, ","); len(st) == 2 && !strings.Contains(string(out), "PostgreSQL ") {
		t.Errorf("the PostgreSQL run does not report the database's CPU:\n%s", out)
	}
	t.Logf("\n%s", out)

	// --leader-elect runs the PostgreSQL server as a fenced replica.
	if strings.Contains(stores, tempPostgres) {
		out, err := exec.Command(bin, "loadtest", "--tasks", "100", "--clients", "4", "--store", tempPostgres, "--leader-elect").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "acknowledged/s") {
			t.Fatalf("a fenced replica: %v\n%s", err, out)
		}
	}

	// Rounds need a fresh database each: a given DSN allows one.
	out, err = exec.Command(bin, "loadtest", "--store", "postgres://u@127.0.0.1:1/db", "--rounds", "2").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--rounds") || !strings.Contains(string(out), tempPostgres) {
		t.Errorf("--rounds 2 with a DSN: err %v\n%s", err, out)
	}
}
