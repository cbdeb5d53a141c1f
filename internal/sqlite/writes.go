package sqlite

import (
	"context"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

// Apply commits a batch of writes in one durable transaction: all or none.
func (s *Store) Apply(ctx context.Context, ws []model.Write) error {
	return s.Commit(ctx, func(tx *Tx) error { return model.ApplyTo(tx, ws) })
}

// Heartbeat rewrites the heartbeat row: a write that proves writes work.
func (t *Tx) Heartbeat(at time.Time) error {
	_, err := t.tx.Exec(`INSERT INTO heartbeat(id, at) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET at=excluded.at`, sqlrow.Nanos(at))
	return err
}
