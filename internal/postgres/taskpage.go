package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

// TaskPage reads one page of tasks and how many match, as the SQLite
// store does (sqlrow.TaskPageQuery). The page, its count and the deleted
// count are read in one read-only REPEATABLE READ transaction (one
// snapshot), so they agree with each other whatever commits meanwhile.
func (s *Store) TaskPage(ctx context.Context, f model.TaskPageFilter) (model.TaskPage, error) {
	q := sqlrow.TaskPageQuery(f, sqlrow.Dollar)
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return model.TaskPage{}, err
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, q.Page, q.PageArgs...)
	if err != nil {
		return model.TaskPage{}, err
	}
	tasks, err := sqlrow.All(rows, sqlrow.Task)
	rows.Close()
	if err != nil {
		return model.TaskPage{}, err
	}
	if s.afterPageRead != nil {
		s.afterPageRead()
	}
	var all, deleted int
	if err := tx.QueryRow(ctx, q.Count, q.CountArgs...).Scan(&all); err != nil {
		return model.TaskPage{}, err
	}
	if !f.Deleted {
		if err := tx.QueryRow(ctx, q.CountDeleted, q.CountArgs...).Scan(&deleted); err != nil {
			return model.TaskPage{}, err
		}
	}
	return model.TaskPage{Tasks: tasks, Total: all - deleted}, tx.Commit(ctx)
}

// TaskFacts counts the Tasks page's figures over the tasks of teams (all
// if none) at now (sqlrow.TaskFactsQuery).
func (s *Store) TaskFacts(ctx context.Context, teams []string, now time.Time) (model.TaskFacts, error) {
	q, args := sqlrow.TaskFactsQuery(teams, sqlrow.Nanos(now), sqlrow.Dollar)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return model.TaskFacts{}, err
	}
	defer rows.Close()
	return sqlrow.ScanTaskFacts(rows)
}
