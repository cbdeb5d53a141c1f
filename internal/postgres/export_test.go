package postgres

import "context"

// Show reads a setting as the store's sessions see it.
func (s *Store) Show(ctx context.Context, name string) (string, error) {
	var v string
	err := s.pool.QueryRow(ctx, "SHOW "+name).Scan(&v)
	return v, err
}
