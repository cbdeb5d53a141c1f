package store

import (
	"context"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Write is one change in a batch, as data: exactly one field is set. The
// engine hands the store a batch of them to commit in one transaction (the
// shape of raft's Ready: a decision to persist before it counts), so that a
// fake store can take the same batch.
type Write struct {
	InsertTask    *TaskRecord
	UpdateTask    *TaskRecord
	Event         *Event
	Audit         *AuditEntry
	Cluster       *model.Cluster
	StartRun      *Run
	EndRun        *RunEnd
	CloseOpenRuns *RunEnd // Task is empty; Keep lists tasks whose runs go on
	Heartbeat     time.Time
}

// RunEnd closes a task's open run (EndRun) or every open run but those of
// Keep (CloseOpenRuns).
type RunEnd struct {
	Task    string
	At      time.Time
	Outcome string
	Keep    map[string]bool
}

// TxWriter is a write transaction of any adapter (SQLite here, PostgreSQL
// in internal/postgres).
type TxWriter interface {
	InsertTask(TaskRecord) error
	UpdateTask(TaskRecord) error
	AddEvent(Event) error
	Audit(AuditEntry) error
	PutCluster(model.Cluster) error
	StartRun(Run) error
	EndRun(task string, at time.Time, outcome string) error
	CloseOpenRuns(at time.Time, outcome string, keep map[string]bool) (int64, error)
	Heartbeat(at time.Time) error
}

// Apply commits a batch of writes in one durable transaction: all or none.
func (s *Store) Apply(ctx context.Context, ws []Write) error {
	return s.Commit(ctx, func(tx *Tx) error { return ApplyTo(tx, ws) })
}

// ApplyTo makes a batch's writes, in order, in an open transaction.
func ApplyTo(t TxWriter, ws []Write) error {
	for i := range ws {
		w := &ws[i]
		var err error
		switch {
		case w.InsertTask != nil:
			err = t.InsertTask(*w.InsertTask)
		case w.UpdateTask != nil:
			err = t.UpdateTask(*w.UpdateTask)
		case w.Event != nil:
			err = t.AddEvent(*w.Event)
		case w.Audit != nil:
			err = t.Audit(*w.Audit)
		case w.Cluster != nil:
			err = t.PutCluster(*w.Cluster)
		case w.StartRun != nil:
			err = t.StartRun(*w.StartRun)
		case w.EndRun != nil:
			err = t.EndRun(w.EndRun.Task, w.EndRun.At, w.EndRun.Outcome)
		case w.CloseOpenRuns != nil:
			_, err = t.CloseOpenRuns(w.CloseOpenRuns.At, w.CloseOpenRuns.Outcome, w.CloseOpenRuns.Keep)
		case !w.Heartbeat.IsZero():
			err = t.Heartbeat(w.Heartbeat)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Heartbeat rewrites the heartbeat row: a write that proves writes work.
func (t *Tx) Heartbeat(at time.Time) error {
	_, err := t.tx.Exec(`INSERT INTO heartbeat(id, at) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET at=excluded.at`, nanos(at))
	return err
}
