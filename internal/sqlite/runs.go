package sqlite

import (
	"context"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

// StartRun opens a run.
func (t *Tx) StartRun(r model.Run) error {
	_, err := t.tx.Exec(`INSERT INTO runs(task, team, instance_type, priority, gpus, vcpu, borrowed_gpus, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Task, r.Team, r.InstanceType, r.Priority, r.GPUs, r.VCPU, r.BorrowedGPUs, sqlrow.Nanos(r.StartedAt))
	return err
}

// EndRun closes a task's open run, if any.
func (t *Tx) EndRun(task string, at time.Time, outcome string) error {
	_, err := t.tx.Exec(`UPDATE runs SET ended_at=?, outcome=? WHERE task=? AND ended_at=0`, sqlrow.Nanos(at), outcome, task)
	return err
}

// CloseOpenRuns ends every open run at at (used at start, for runs the
// previous server left open) except those of the tasks in keep (runs that
// were adopted and go on), returning how many it closed.
func (t *Tx) CloseOpenRuns(at time.Time, outcome string, keep map[string]bool) (int64, error) {
	rows, err := t.tx.Query(`SELECT id, task FROM runs WHERE ended_at=0`)
	if err != nil {
		return 0, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		var task string
		if err := rows.Scan(&id, &task); err != nil {
			rows.Close()
			return 0, err
		}
		if !keep[task] {
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, id := range ids {
		if _, err := t.tx.Exec(`UPDATE runs SET ended_at=?, outcome=? WHERE id=?`, sqlrow.Nanos(at), outcome, id); err != nil {
			return 0, err
		}
	}
	return int64(len(ids)), nil
}

// Runs returns the runs that overlap [from, to), oldest first.
func (s *Store) Runs(ctx context.Context, from, to time.Time) ([]model.Run, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+sqlrow.RunColumns+`
		FROM runs WHERE started_at < ? AND (ended_at = 0 OR ended_at > ?) ORDER BY started_at, id`, sqlrow.Nanos(to), sqlrow.Nanos(from))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, sqlrow.Run)
}

// StartSession records a server start and returns its id.
func (s *Store) StartSession(ctx context.Context, at time.Time) (int64, error) {
	var id int64
	err := s.Commit(ctx, func(tx *Tx) error {
		res, err := tx.tx.Exec(`INSERT INTO sessions(started_at) VALUES (?)`, sqlrow.Nanos(at))
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	return id, err
}

// StopSession records a clean stop.
func (s *Store) StopSession(ctx context.Context, id int64, at time.Time) error {
	return s.Commit(ctx, func(tx *Tx) error {
		_, err := tx.tx.Exec(`UPDATE sessions SET stopped_at=? WHERE id=?`, sqlrow.Nanos(at), id)
		return err
	})
}

// Sessions lists server sessions, oldest first.
func (s *Store) Sessions(ctx context.Context) ([]model.Session, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+sqlrow.SessionColumns+` FROM sessions ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, sqlrow.Session)
}
