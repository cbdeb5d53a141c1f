package httpapi

import (
	"context"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Store is what the API reads from the database beside the engine (lists,
// events, audit, usage, trends) and the token writes it makes itself.
// Both adapters (SQLite, PostgreSQL) implement it.
type Store interface {
	TokenStore
	ListTasks(ctx context.Context, f model.TaskFilter) ([]model.TaskRecord, error)
	TaskPage(ctx context.Context, f model.TaskPageFilter) (model.TaskPage, error)
	TaskFacts(ctx context.Context, teams []string, now time.Time) (model.TaskFacts, error)
	Events(ctx context.Context, task string, afterID int64, limit int) ([]model.Event, error)
	Tokens(ctx context.Context) ([]model.Token, error)
	TokenByHash(ctx context.Context, hash string) (model.Token, error)
	RevokeTokenAudited(ctx context.Context, id string, at time.Time, audit model.AuditEntry) (bool, error)
	AuditLog(ctx context.Context, f model.AuditFilter) ([]model.AuditEntry, error)
	Preemptions(ctx context.Context, f model.PreemptionFilter) ([]model.PreemptionRecord, error)
	Samples(ctx context.Context, resolution time.Duration, from time.Time) ([]model.Sample, error)
	Runs(ctx context.Context, from, to time.Time) ([]model.Run, error)
	Sessions(ctx context.Context) ([]model.Session, error)
}

// TokenStore creates tokens (IssueToken).
type TokenStore interface {
	CreateToken(ctx context.Context, tok model.Token, hash string, audit model.AuditEntry) error
}
