package postgres_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/postgres/pgtest"
	"github.com/taskgov/taskgov/internal/storetest"
)

// server is one throwaway cluster for the package; each test gets its own
// database in it.
var server *pgtest.Server

func TestMain(m *testing.M) {
	s, err := pgtest.StartServer()
	if err != nil && err.Error() != pgtest.HowTo {
		fmt.Fprintln(os.Stderr, "starting PostgreSQL:", err)
		os.Exit(1)
	}
	server = s
	code := m.Run()
	if s != nil {
		s.Stop()
	}
	os.Exit(code)
}

// fresh opens a new empty database for t.
func fresh(t *testing.T) func() *postgres.Store {
	t.Helper()
	if server == nil {
		t.Skip(pgtest.HowTo)
	}
	dsn := server.NewDatabase(t)
	return func() *postgres.Store {
		s, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// TestSuite runs the adapters' shared suite against PostgreSQL.
func TestSuite(t *testing.T) {
	storetest.Run[*postgres.Store, *postgres.Tx](t, fresh)
}

// BenchmarkCommit16: one group commit of 16 submissions on a local
// PostgreSQL with synchronous_commit and fsync on (compare with
// internal/sqlite's BenchmarkCommit16).
func BenchmarkCommit16(b *testing.B) {
	if server == nil {
		b.Skip(pgtest.HowTo)
	}
	s, err := postgres.Open(context.Background(), server.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchCommit[*postgres.Store, *postgres.Tx](b, s, 16)
}

// BenchmarkCommit16Fenced is BenchmarkCommit16 for a leader with
// --leader-elect: every commit also checks its term under a share lock, in
// the same round trip (compare the two to see what fencing costs).
func BenchmarkCommit16Fenced(b *testing.B) {
	if server == nil {
		b.Skip(pgtest.HowTo)
	}
	s, err := postgres.Open(context.Background(), server.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	term, ok, err := s.Acquire(context.Background(), "bench", time.Hour)
	if err != nil || !ok {
		b.Fatal(ok, err)
	}
	s.Fence(term)
	storetest.BenchCommit[*postgres.Store, *postgres.Tx](b, s, 16)
}
