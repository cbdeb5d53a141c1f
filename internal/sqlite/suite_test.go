package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/taskgov/taskgov/internal/sqlite"
	"github.com/taskgov/taskgov/internal/storetest"
)

// TestSuite runs the adapters' shared suite against SQLite.
func TestSuite(t *testing.T) {
	storetest.Run[*sqlite.Store, *sqlite.Tx](t, func(t *testing.T) func() *sqlite.Store {
		path := filepath.Join(t.TempDir(), "t.db")
		return func() *sqlite.Store {
			s, err := sqlite.Open(path)
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
	s, err := sqlite.Open(filepath.Join(b.TempDir(), "t.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchCommit[*sqlite.Store, *sqlite.Tx](b, s, 16)
}
