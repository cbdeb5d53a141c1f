package postgres

import (
	"context"

	"github.com/taskgov/taskgov/internal/model"
)

// PriorUse is the newest task stored under name (nil if none), from the
// in-memory name index. The index is reloaded after every Fence (a new
// term: another replica may have written in between); the insert itself
// enforces the rule in the database (appends.go).
func (s *Store) PriorUse(ctx context.Context, name string) (*model.PriorUse, error) {
	return s.names.Lookup(name, func() ([]model.NameRow, error) {
		rows, err := s.pool.Query(ctx, `SELECT name, seq, team, state FROM tasks`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		return model.ScanNameRows(rows)
	})
}
