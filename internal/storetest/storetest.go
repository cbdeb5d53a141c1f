// Package storetest is the one test suite every storage adapter passes:
// the SQLite store (internal/store) and PostgreSQL (internal/postgres) run
// it from their own tests, so that both keep the same semantics. It asserts
// behaviour through the adapters' methods only.
//
// It imports store (the record types) and model. It must never import an
// adapter: adapters import it from their tests.
package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Tx is what the suite needs of an adapter's write transaction.
type Tx interface {
	InsertTask(model.TaskRecord) error
	UpdateTask(model.TaskRecord) error
	AddEvent(model.Event) error
	PutCluster(model.Cluster) error
	StartRun(model.Run) error
	EndRun(task string, at time.Time, outcome string) error
	CloseOpenRuns(at time.Time, outcome string, keep map[string]bool) (int64, error)
	InsertToken(tok model.Token, hash string) error
	RevokeToken(id string, at time.Time) (bool, error)
	RevokeTeamTokens(team string, at time.Time) ([]string, error)
	Audit(model.AuditEntry) error
	AddPreemption(model.PreemptionRecord) error
}

// Store is what the suite needs of an adapter, with T its transaction type.
type Store[T Tx] interface {
	Commit(ctx context.Context, fn func(T) error) error
	Close() error
	Task(ctx context.Context, name string) (model.TaskRecord, error)
	ListTasks(ctx context.Context, f model.TaskFilter) ([]model.TaskRecord, error)
	LiveTasks(ctx context.Context) ([]model.TaskRecord, error)
	MaxSeq(ctx context.Context) (int64, error)
	Events(ctx context.Context, task string, afterID int64, limit int) ([]model.Event, error)
	Cluster(ctx context.Context) (model.Cluster, bool, error)
	LastEventAt(ctx context.Context) (time.Time, error)
	Runs(ctx context.Context, from, to time.Time) ([]model.Run, error)
	StartSession(ctx context.Context, at time.Time) (int64, error)
	StopSession(ctx context.Context, id int64, at time.Time) error
	Sessions(ctx context.Context) ([]model.Session, error)
	AddSamples(ctx context.Context, resolution time.Duration, ss []model.Sample) error
	Samples(ctx context.Context, resolution time.Duration, from time.Time) ([]model.Sample, error)
	PruneSamples(ctx context.Context, resolution time.Duration, before time.Time) error
	TokenByHash(ctx context.Context, hash string) (model.Token, error)
	Tokens(ctx context.Context) ([]model.Token, error)
	AuditLog(ctx context.Context, f model.AuditFilter) ([]model.AuditEntry, error)
	PruneAudit(ctx context.Context, before time.Time) (int64, error)
	TaskPage(ctx context.Context, f model.TaskPageFilter) (model.TaskPage, error)
	TaskFacts(ctx context.Context, teams []string, now time.Time) (model.TaskFacts, error)
	Preemptions(ctx context.Context, f model.PreemptionFilter) ([]model.PreemptionRecord, error)
}

// Opener makes a fresh, empty database for one test and returns a function
// that opens it; each call opens the same database again (a restart).
type Opener[S Store[T], T Tx] func(t *testing.T) (open func() S)
