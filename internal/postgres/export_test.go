package postgres

import "context"

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
