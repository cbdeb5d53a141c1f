package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/postgres/pgtest"
)

// pgFixture is what a test of servers on PostgreSQL starts from:
// PostgreSQL started for the test with a fresh database (dsn), the taskgov
// binary, a scratch folder and, in it, a cluster file (cfg).
type pgFixture struct {
	pg                 *pgtest.Server
	dsn, bin, dir, cfg string
}

// newPGFixture makes t's fixture with cluster as its cluster file; it
// skips t under -short.
func newPGFixture(t *testing.T, cluster string) pgFixture {
	t.Helper()
	if testing.Short() {
		t.Skip("starts PostgreSQL and server processes")
	}
	f := pgFixture{pg: pgtest.Start(t)}
	f.dsn = f.pg.NewDatabase(t)
	f.bin = buildBinary(t)
	f.dir = t.TempDir()
	f.cfg = filepath.Join(f.dir, "cluster.yaml")
	if err := os.WriteFile(f.cfg, []byte(cluster), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// startPair starts two replicas of one installation: a in dir/a on dsnA
// (the fixture's database, or a way to it such as a proxy), then, once a
// leads, b in dir/b on the database itself, until b stands by naming a as
// its leader. Both carry a's admin token; args go to both.
func (f pgFixture) startPair(t *testing.T, dsnA string, args ...string) (a, b *replica) {
	t.Helper()
	a = startPGReplica(t, f.bin, filepath.Join(f.dir, "a"), dsnA, f.cfg, args...)
	a.waitStatus(t, "/readyz", 200, 30*time.Second)
	b = startPGReplica(t, f.bin, filepath.Join(f.dir, "b"), f.dsn, f.cfg, args...)
	waitFor(t, 10*time.Second, func() bool { return b.waitStatus(t, "/readyz", 503, time.Second)["leader"] == a.url })
	tok, err := os.ReadFile(filepath.Join(f.dir, "a", "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	a.token, b.token = strings.TrimSpace(string(tok)), strings.TrimSpace(string(tok))
	return a, b
}
