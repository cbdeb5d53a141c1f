package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

// InsertTask stores a new task. It enforces model.CheckNameReuse: a name
// another team used, or one a live task holds, is refused with
// model.ErrConflict (and the transaction should then be rolled back).
func (t *Tx) InsertTask(r model.TaskRecord) error {
	prior, err := t.priorInTx(r.Name)
	if err != nil {
		return err
	}
	if err := model.CheckNameReuse(r.Name, r.Team, prior); err != nil {
		return err
	}
	spec, err := sqlrow.TaskSpec(r)
	if err != nil {
		return err
	}
	_, err = t.tx.Exec(`INSERT INTO tasks(name, team, seq, spec, state, submitted_at) VALUES (?, ?, ?, ?, ?, ?)`,
		r.Name, r.Team, r.Seq, spec, r.State, sqlrow.Nanos(r.SubmittedAt))
	if err == nil {
		t.tasks = append(t.tasks, model.RowOf(r))
	}
	return err
}

var updateTask = `UPDATE tasks SET ` + sqlrow.Assign(sqlrow.TaskUpdateColumns, sqlrow.Question) + ` WHERE seq=?`

// UpdateTask writes a task's mutable fields; the task is the one with r.Seq
// (a name may be reused once its task has finished).
func (t *Tx) UpdateTask(r model.TaskRecord) error {
	vals, err := sqlrow.TaskUpdateValues(r)
	if err != nil {
		return err
	}
	_, err = t.tx.Exec(updateTask, append(vals, r.Seq)...)
	if err == nil {
		t.tasks = append(t.tasks, model.RowOf(r))
	}
	return err
}

// AddEvent appends to a task's event history.
func (t *Tx) AddEvent(e model.Event) error {
	_, err := t.tx.Exec(`INSERT INTO events(task, task_seq, team, at, kind, message) VALUES (?, ?, ?, ?, ?, ?)`,
		e.Task, e.TaskSeq, e.Team, sqlrow.Nanos(e.At), e.Kind, e.Message)
	return err
}

// PutCluster stores the cluster configuration document.
func (t *Tx) PutCluster(c model.Cluster) error {
	doc, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = t.tx.Exec(`INSERT INTO cluster(id, doc) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET doc=excluded.doc`, string(doc))
	return err
}

// Task reads the newest task with a name.
func (s *Store) Task(ctx context.Context, name string) (model.TaskRecord, error) {
	r, err := sqlrow.Task(s.r.QueryRowContext(ctx, `SELECT `+sqlrow.TaskColumns+` FROM tasks WHERE name=? ORDER BY seq DESC LIMIT 1`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("task %q: %w", name, model.ErrNotFound)
	}
	return r, s.note(err)
}

// TasksNamed is every task stored under a name, newest first.
func (s *Store) TasksNamed(ctx context.Context, name string) ([]model.TaskRecord, error) {
	return s.queryTasks(ctx, `SELECT `+sqlrow.TaskColumns+` FROM tasks WHERE name=? ORDER BY seq DESC`, name)
}

// ListTasks returns tasks in submission order.
func (s *Store) ListTasks(ctx context.Context, f model.TaskFilter) ([]model.TaskRecord, error) {
	q := `SELECT ` + sqlrow.TaskColumns + ` FROM tasks WHERE seq > ?`
	args := []any{f.AfterSeq}
	if len(f.Teams) > 0 {
		q += ` AND team IN (?` + strings.Repeat(",?", len(f.Teams)-1) + `)`
		for _, t := range f.Teams {
			args = append(args, t)
		}
	}
	if len(f.States) > 0 {
		q += ` AND state IN (?` + strings.Repeat(",?", len(f.States)-1) + `)`
		for _, st := range f.States {
			args = append(args, st)
		}
	}
	if !f.Since.IsZero() {
		q += ` AND submitted_at >= ?`
		args = append(args, sqlrow.Nanos(f.Since))
	}
	q += ` ORDER BY seq LIMIT ?`
	args = append(args, f.Limit)
	return s.queryTasks(ctx, q, args...)
}

func (s *Store) queryTasks(ctx context.Context, q string, args ...any) ([]model.TaskRecord, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.note(err)
	}
	defer rows.Close()
	out, err := sqlrow.All(rows, sqlrow.Task)
	return out, s.note(err)
}

// LiveTasks returns every task not in a terminal state, in submission order,
// for recovery.
func (s *Store) LiveTasks(ctx context.Context) ([]model.TaskRecord, error) {
	return s.queryTasks(ctx, `SELECT `+sqlrow.TaskColumns+` FROM tasks WHERE state NOT IN (?, ?, ?) ORDER BY seq`, model.StateSucceeded, model.StateFailed, model.StateCancelled)
}

// MaxSeq is the highest submission sequence stored (0 if none).
func (s *Store) MaxSeq(ctx context.Context) (int64, error) {
	var n int64
	err := s.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM tasks`).Scan(&n)
	return n, err
}

// Events returns the events after id afterID, oldest first, of the newest
// task with a name.
func (s *Store) Events(ctx context.Context, task string, afterID int64, limit int) ([]model.Event, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+sqlrow.EventColumns+` FROM events
		WHERE task_seq=(SELECT COALESCE(MAX(seq), -1) FROM tasks WHERE name=?) AND task=? AND id > ? ORDER BY id LIMIT ?`,
		task, task, afterID, limit)
	if err != nil {
		return nil, s.note(err)
	}
	defer rows.Close()
	out, err := sqlrow.All(rows, sqlrow.Event)
	return out, s.note(err)
}

// Cluster reads the stored cluster configuration; ok is false if none.
func (s *Store) Cluster(ctx context.Context) (model.Cluster, bool, error) {
	return sqlrow.Cluster(s.r.QueryRowContext(ctx, sqlrow.ClusterQuery), sql.ErrNoRows)
}

// LastEventAt is the time of the newest stored event (zero if none).
func (s *Store) LastEventAt(ctx context.Context) (time.Time, error) {
	var n int64
	err := s.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(at), 0) FROM events`).Scan(&n)
	return sqlrow.Time(n), err
}
