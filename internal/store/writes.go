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

// Apply commits a batch of writes in one durable transaction: all or none.
func (s *Store) Apply(ctx context.Context, ws []Write) error {
	return s.Commit(ctx, func(tx *Tx) error {
		for i := range ws {
			if err := tx.apply(&ws[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

func (t *Tx) apply(w *Write) error {
	switch {
	case w.InsertTask != nil:
		return t.InsertTask(*w.InsertTask)
	case w.UpdateTask != nil:
		return t.UpdateTask(*w.UpdateTask)
	case w.Event != nil:
		return t.AddEvent(*w.Event)
	case w.Audit != nil:
		return t.Audit(*w.Audit)
	case w.Cluster != nil:
		return t.PutCluster(*w.Cluster)
	case w.StartRun != nil:
		return t.StartRun(*w.StartRun)
	case w.EndRun != nil:
		return t.EndRun(w.EndRun.Task, w.EndRun.At, w.EndRun.Outcome)
	case w.CloseOpenRuns != nil:
		_, err := t.CloseOpenRuns(w.CloseOpenRuns.At, w.CloseOpenRuns.Outcome, w.CloseOpenRuns.Keep)
		return err
	case !w.Heartbeat.IsZero():
		_, err := t.tx.Exec(`INSERT INTO heartbeat(id, at) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET at=excluded.at`, nanos(w.Heartbeat))
		return err
	}
	return nil
}
