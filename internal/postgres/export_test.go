package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Show reads a setting as the store's sessions see it.
func (s *Store) Show(ctx context.Context, name string) (string, error) {
	var v string
	err := s.pool.QueryRow(ctx, "SHOW "+name).Scan(&v)
	return v, err
}

// FakeSQLiteHolder makes the import see pid as a server holding the SQLite
// file (0: none) until the returned func is called.
func FakeSQLiteHolder(pid *int) func() {
	fakeHolder = func() int { return *pid }
	return func() { fakeHolder = nil }
}

// AfterPageRead makes TaskPage call fn between reading the page and
// counting it, for a test that commits there.
func (s *Store) AfterPageRead(fn func()) { s.afterPageRead = fn }

// MigrateTo migrates the database at dsn to schema version n, as a
// taskgov that knew only the first n migrations would.
func MigrateTo(ctx context.Context, dsn string, n int) error {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	return (&Store{pool: pool}).migrateTo(ctx, n)
}

// Flush sends what the transaction has queued, for a test that needs the
// database to have seen part of a commit before it fails.
func (t *Tx) Flush() error { return t.flush() }

// SetStartSettle sets how long the first rebuild read waits for other
// sessions' transactions (StartSettleTimeout).
func (s *Store) SetStartSettle(d time.Duration) { s.startSettle = d }
