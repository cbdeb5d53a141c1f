package postgres

import (
	"context"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

// StartRun opens a run.
func (t *Tx) StartRun(r model.Run) error {
	t.exec(`INSERT INTO runs(task, team, instance_type, priority, gpus, vcpu, borrowed_gpus, started_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		r.Task, r.Team, r.InstanceType, r.Priority, r.GPUs, r.VCPU, r.BorrowedGPUs, sqlrow.Nanos(r.StartedAt))
	return nil
}

// EndRun closes a task's open run, if any.
func (t *Tx) EndRun(task string, at time.Time, outcome string) error {
	t.exec(`UPDATE runs SET ended_at=$1, outcome=$2 WHERE task=$3 AND ended_at=0`, sqlrow.Nanos(at), outcome, task)
	return nil
}

// CloseOpenRuns ends every open run at at (used at start, for runs the
// previous server left open) except those of the tasks in keep (runs that
// were adopted and go on), returning how many it closed.
func (t *Tx) CloseOpenRuns(at time.Time, outcome string, keep map[string]bool) (int64, error) {
	if err := t.flush(); err != nil {
		return 0, err
	}
	kept := make([]string, 0, len(keep))
	for task, k := range keep {
		if k {
			kept = append(kept, task)
		}
	}
	tag, err := t.tx.Exec(t.ctx, `UPDATE runs SET ended_at=$1, outcome=$2 WHERE ended_at=0 AND NOT (task = ANY($3))`,
		sqlrow.Nanos(at), outcome, kept)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// Runs returns the runs that overlap [from, to), oldest first.
func (s *Store) Runs(ctx context.Context, from, to time.Time) ([]model.Run, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+sqlrow.RunColumns+`
		FROM runs WHERE started_at < $1 AND (ended_at = 0 OR ended_at > $2) ORDER BY started_at, id`, sqlrow.Nanos(to), sqlrow.Nanos(from))
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
		if err := tx.flush(); err != nil {
			return err
		}
		return tx.tx.QueryRow(tx.ctx, `INSERT INTO sessions(started_at) VALUES ($1) RETURNING id`, sqlrow.Nanos(at)).Scan(&id)
	})
	return id, err
}

// StopSession records a clean stop.
func (s *Store) StopSession(ctx context.Context, id int64, at time.Time) error {
	return s.Commit(ctx, func(tx *Tx) error {
		tx.exec(`UPDATE sessions SET stopped_at=$1 WHERE id=$2`, sqlrow.Nanos(at), id)
		return nil
	})
}

// Sessions lists server sessions, oldest first.
func (s *Store) Sessions(ctx context.Context) ([]model.Session, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+sqlrow.SessionColumns+` FROM sessions ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, sqlrow.Session)
}
