package sqlite

import (
	"context"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

var insertPreemption = sqlrow.InsertPreemption(sqlrow.Question)

// AddPreemption records a preemption the scheduler made.
func (t *Tx) AddPreemption(p model.PreemptionRecord) error {
	_, err := t.tx.Exec(insertPreemption, sqlrow.PreemptionValues(p)...)
	return err
}

// Preemptions lists recent preemptions, newest first (sqlrow.PreemptionQuery).
func (s *Store) Preemptions(ctx context.Context, f model.PreemptionFilter) ([]model.PreemptionRecord, error) {
	q, args := sqlrow.PreemptionQuery(f, sqlrow.Question)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.note(err)
	}
	defer rows.Close()
	out, err := sqlrow.All(rows, sqlrow.Preemption)
	return out, s.note(err)
}
