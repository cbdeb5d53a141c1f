package postgres_test

import (
	"testing"

	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/storetest"
)

// TestTaskPageAt100k is internal/sqlite's TestTaskPageAt100k on
// PostgreSQL: the same queries (sqlrow.TaskPageQuery), the same bound.
func TestTaskPageAt100k(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 100,000 tasks")
	}
	s := fresh(t)()
	defer s.Close()
	storetest.PageScale[*postgres.Store, *postgres.Tx](t, s, 100000, 10)
}
