package sqlite

import (
	"context"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

// TaskPage reads one page of tasks and how many match
// (sqlrow.TaskPageQuery: from indexes, not a walk of every task). The page,
// its count and the deleted count are read in one read transaction, so they
// agree with each other whatever commits meanwhile (WAL: one snapshot).
func (s *Store) TaskPage(ctx context.Context, f model.TaskPageFilter) (model.TaskPage, error) {
	q := sqlrow.TaskPageQuery(f, sqlrow.Question)
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return model.TaskPage{}, s.note(err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, q.Page, q.PageArgs...)
	if err != nil {
		return model.TaskPage{}, s.note(err)
	}
	tasks, err := sqlrow.All(rows, sqlrow.Task)
	rows.Close()
	if err != nil {
		return model.TaskPage{}, s.note(err)
	}
	if s.afterPageRead != nil {
		s.afterPageRead()
	}
	var all, deleted int
	if err := tx.QueryRowContext(ctx, q.Count, q.CountArgs...).Scan(&all); err != nil {
		return model.TaskPage{}, s.note(err)
	}
	if !f.Deleted {
		if err := tx.QueryRowContext(ctx, q.CountDeleted, q.CountArgs...).Scan(&deleted); err != nil {
			return model.TaskPage{}, s.note(err)
		}
	}
	return model.TaskPage{Tasks: tasks, Total: all - deleted}, s.note(tx.Commit())
}

// TaskFacts counts the Tasks page's figures over the tasks of teams (all
// if none) at now (sqlrow.TaskFactsQuery).
func (s *Store) TaskFacts(ctx context.Context, teams []string, now time.Time) (model.TaskFacts, error) {
	q, args := sqlrow.TaskFactsQuery(teams, sqlrow.Nanos(now), sqlrow.Question)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return model.TaskFacts{}, s.note(err)
	}
	defer rows.Close()
	f, err := sqlrow.ScanTaskFacts(rows)
	return f, s.note(err)
}

// Explain is SQLite's plan of a query (EXPLAIN QUERY PLAN), one step a
// line, for tests that check which index a query uses.
func (s *Store) Explain(ctx context.Context, q string, args ...any) (string, error) {
	rows, err := s.r.QueryContext(ctx, `EXPLAIN QUERY PLAN `+q, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var out string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return "", err
		}
		out += detail + "\n"
	}
	return out, rows.Err()
}
