package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

// InsertTask stores a new task. It enforces model.CheckNameReuse, as the
// SQLite store does, inside the (multi-row) insert: a refused task writes
// nothing and the commit fails with the rule's conflict error.
func (t *Tx) InsertTask(r model.TaskRecord) error {
	spec, err := sqlrow.TaskSpec(r)
	if err != nil {
		return err
	}
	t.rows.addTask(r, spec)
	t.names = append(t.names, model.RowOf(r))
	return nil
}

var updateTask = `UPDATE tasks SET ` + sqlrow.Assign(sqlrow.TaskUpdateColumns, sqlrow.Dollar) +
	` WHERE seq=` + sqlrow.Dollar(len(sqlrow.TaskUpdateColumns)+1)

// UpdateTask writes a task's mutable fields; the task is the one with r.Seq.
func (t *Tx) UpdateTask(r model.TaskRecord) error {
	vals, err := sqlrow.TaskUpdateValues(r)
	if err != nil {
		return err
	}
	t.exec(updateTask, append(vals, r.Seq)...)
	t.names = append(t.names, model.RowOf(r))
	return nil
}

// AddEvent appends to a task's event history.
func (t *Tx) AddEvent(e model.Event) error {
	t.rows.addEvent(e)
	return nil
}

// PutCluster stores the cluster configuration document.
func (t *Tx) PutCluster(c model.Cluster) error {
	doc, err := json.Marshal(c)
	if err != nil {
		return err
	}
	t.exec(`INSERT INTO cluster(id, doc) VALUES (1, $1) ON CONFLICT(id) DO UPDATE SET doc=excluded.doc`, string(doc))
	return nil
}

// Task reads the newest task with a name.
func (s *Store) Task(ctx context.Context, name string) (model.TaskRecord, error) {
	r, err := sqlrow.Task(s.pool.QueryRow(ctx, `SELECT `+sqlrow.TaskColumns+` FROM tasks WHERE name=$1 ORDER BY seq DESC LIMIT 1`, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("task %q: %w", name, model.ErrNotFound)
	}
	return r, err
}

// TasksNamed is every task stored under a name, newest first.
func (s *Store) TasksNamed(ctx context.Context, name string) ([]model.TaskRecord, error) {
	return s.queryTasks(ctx, `SELECT `+sqlrow.TaskColumns+` FROM tasks WHERE name=$1 ORDER BY seq DESC`, name)
}

// ListTasks returns tasks in submission order.
func (s *Store) ListTasks(ctx context.Context, f model.TaskFilter) ([]model.TaskRecord, error) {
	q := `SELECT ` + sqlrow.TaskColumns + ` FROM tasks WHERE seq > $1`
	args := []any{f.AfterSeq}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if len(f.Teams) > 0 {
		q += ` AND team = ANY(` + arg(f.Teams) + `)`
	}
	if len(f.States) > 0 {
		q += ` AND state = ANY(` + arg(f.States) + `)`
	}
	if !f.Since.IsZero() {
		q += ` AND submitted_at >= ` + arg(sqlrow.Nanos(f.Since))
	}
	q += ` ORDER BY seq LIMIT ` + arg(f.Limit)
	return s.queryTasks(ctx, q, args...)
}

func (s *Store) queryTasks(ctx context.Context, q string, args ...any) ([]model.TaskRecord, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, sqlrow.Task)
}

// LiveTasks returns every task not in a terminal state, in submission order,
// for recovery.
func (s *Store) LiveTasks(ctx context.Context) ([]model.TaskRecord, error) {
	if err := s.settle(ctx); err != nil {
		return nil, err
	}
	return s.queryTasks(ctx, `SELECT `+sqlrow.TaskColumns+` FROM tasks WHERE state NOT IN ($1, $2, $3) ORDER BY seq`,
		model.StateSucceeded, model.StateFailed, model.StateCancelled)
}

// MaxSeq is the highest submission sequence stored (0 if none).
func (s *Store) MaxSeq(ctx context.Context) (int64, error) {
	var n int64
	if err := s.settle(ctx); err != nil {
		return 0, err
	}
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(MAX(seq), 0) FROM tasks`).Scan(&n)
	return n, err
}

// Events returns the events after id afterID, oldest first, of the newest
// task with a name.
func (s *Store) Events(ctx context.Context, task string, afterID int64, limit int) ([]model.Event, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+sqlrow.EventColumns+` FROM events
		WHERE task_seq=(SELECT COALESCE(MAX(seq), -1) FROM tasks WHERE name=$1) AND task=$1 AND id > $2 ORDER BY id LIMIT $3`,
		task, afterID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, sqlrow.Event)
}

// Cluster reads the stored cluster configuration; ok is false if none.
func (s *Store) Cluster(ctx context.Context) (model.Cluster, bool, error) {
	if err := s.settle(ctx); err != nil {
		return model.Cluster{}, false, err
	}
	return sqlrow.Cluster(s.pool.QueryRow(ctx, sqlrow.ClusterQuery), pgx.ErrNoRows)
}

// LastEventAt is the time of the newest stored event (zero if none).
func (s *Store) LastEventAt(ctx context.Context) (time.Time, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(MAX(at), 0) FROM events`).Scan(&n)
	return sqlrow.Time(n), err
}

const priorUseQuery = `SELECT team, state FROM tasks WHERE name=$1 ORDER BY seq DESC LIMIT 1`

func priorUse(row pgx.Row) (*model.PriorUse, error) {
	var team, state string
	err := row.Scan(&team, &state)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &model.PriorUse{Team: team, Live: !model.TaskState(state).Terminal()}, nil
}

// Heartbeat rewrites the heartbeat row: a write that proves writes work.
func (t *Tx) Heartbeat(at time.Time) error {
	t.exec(`INSERT INTO heartbeat(id, at) VALUES (1, $1) ON CONFLICT(id) DO UPDATE SET at=excluded.at`, sqlrow.Nanos(at))
	return nil
}

// Apply commits a batch of writes in one transaction: all or none.
func (s *Store) Apply(ctx context.Context, ws []model.Write) error {
	return s.Commit(ctx, func(tx *Tx) error { return model.ApplyTo(tx, ws) })
}

// Probe checks that the database answers.
func (s *Store) Probe(ctx context.Context) error {
	var one int
	return s.pool.QueryRow(ctx, `SELECT 1`).Scan(&one)
}
