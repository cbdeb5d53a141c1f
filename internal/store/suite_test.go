package store_test

import (
	"path/filepath"
	"testing"

	"github.com/taskgov/taskgov/internal/store"
	"github.com/taskgov/taskgov/internal/storetest"
)

// TestSuite runs the adapters' shared suite against SQLite.
func TestSuite(t *testing.T) {
	storetest.Run[*store.Store, *store.Tx](t, func(t *testing.T) func() *store.Store {
		path := filepath.Join(t.TempDir(), "t.db")
		return func() *store.Store {
			s, err := store.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}

// BenchmarkCommit16: one group commit of 16 submissions (compare with
// internal/postgres's BenchmarkCommit16).
func BenchmarkCommit16(b *testing.B) {
	s, err := store.Open(filepath.Join(b.TempDir(), "t.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchCommit[*store.Store, *store.Tx](b, s, 16)
}
