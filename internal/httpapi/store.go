package httpapi

import (
	"context"
	"time"

	"github.com/taskgov/taskgov/internal/store"
)

// Store is what the API reads from the database beside the engine (lists,
// events, audit, usage, trends) and the token writes it makes itself.
// Both adapters (SQLite, PostgreSQL) implement it.
type Store interface {
	TokenStore
	ListTasks(ctx context.Context, f store.TaskFilter) ([]store.TaskRecord, error)
	Events(ctx context.Context, task string, afterID int64, limit int) ([]store.Event, error)
	Tokens(ctx context.Context) ([]store.Token, error)
	TokenByHash(ctx context.Context, hash string) (store.Token, error)
	RevokeTokenAudited(ctx context.Context, id string, at time.Time, audit store.AuditEntry) (bool, error)
	AuditLog(ctx context.Context, f store.AuditFilter) ([]store.AuditEntry, error)
	Samples(ctx context.Context, resolution time.Duration, from time.Time) ([]store.Sample, error)
	Runs(ctx context.Context, from, to time.Time) ([]store.Run, error)
	Sessions(ctx context.Context) ([]store.Session, error)
}

// TokenStore creates tokens (IssueToken).
type TokenStore interface {
	CreateToken(ctx context.Context, tok store.Token, hash string, audit store.AuditEntry) error
}

var _ Store = (*store.Store)(nil)
