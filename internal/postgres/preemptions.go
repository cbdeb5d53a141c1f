package postgres

import (
	"context"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

var insertPreemption = sqlrow.InsertPreemption(sqlrow.Dollar)

// AddPreemption records a preemption the scheduler made.
func (t *Tx) AddPreemption(p model.PreemptionRecord) error {
	t.exec(insertPreemption, sqlrow.PreemptionValues(p)...)
	return nil
}

// Preemptions lists recent preemptions, newest first (sqlrow.PreemptionQuery).
func (s *Store) Preemptions(ctx context.Context, f model.PreemptionFilter) ([]model.PreemptionRecord, error) {
	q, args := sqlrow.PreemptionQuery(f, sqlrow.Dollar)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, sqlrow.Preemption)
}
