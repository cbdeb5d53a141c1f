package sqlite

import (
	"context"
	"database/sql"

	"github.com/taskgov/taskgov/internal/model"
)

// loadNames reads every task's name row for the name index
// (model.NameIndex); the database's unique index on live names backs the
// index up.
func loadNames(q func(string, ...any) (*sql.Rows, error)) func() ([]model.NameRow, error) {
	return func() ([]model.NameRow, error) {
		rows, err := q(`SELECT name, seq, team, state FROM tasks`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		return model.ScanNameRows(rows)
	}
}

// PriorUse is the newest task stored under name (nil if none), for
// model.CheckNameReuse before a submission reaches the store.
func (s *Store) PriorUse(ctx context.Context, name string) (*model.PriorUse, error) {
	p, err := s.names.Lookup(name, loadNames(func(q string, args ...any) (*sql.Rows, error) {
		return s.r.QueryContext(ctx, q, args...)
	}))
	return p, s.note(err)
}

// priorInTx is PriorUse as seen inside a transaction: its own task writes
// first, then the committed index.
func (t *Tx) priorInTx(name string) (*model.PriorUse, error) {
	for i := len(t.tasks) - 1; i >= 0; i-- {
		if r := t.tasks[i]; r.Name == name {
			return &model.PriorUse{Team: r.Team, Live: !r.State.Terminal()}, nil
		}
	}
	// The index loads through the read connection (committed rows only):
	// loaded through this transaction, it would keep this transaction's
	// rows if it then rolled back.
	return t.s.names.Lookup(name, loadNames(t.s.r.Query))
}
