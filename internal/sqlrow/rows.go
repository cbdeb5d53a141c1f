package sqlrow

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Row is one result row: database/sql's *sql.Row and *sql.Rows, and pgx's
// Row and Rows, all satisfy it.
type Row interface{ Scan(dest ...any) error }

// Rows is a result set (database/sql's *sql.Rows, pgx's Rows); the caller
// closes it.
type Rows interface {
	Row
	Next() bool
	Err() error
}

// All reads every row of rows with scan.
func All[T any](rows Rows, scan func(Row) (T, error)) ([]T, error) {
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Nanos is how a time is stored: Unix nanoseconds, 0 for the zero time.
func Nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// Time reads a time stored by Nanos, in UTC.
func Time(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// TaskColumns are the columns of a task that Task reads, in its order.
const TaskColumns = `name, team, seq, spec, state, submitted_at, started_at, finished_at, checkpoint_at, resumes, retries, placement, pgids, message`

// Task reads a row of TaskColumns.
func Task(row Row) (model.TaskRecord, error) {
	var r model.TaskRecord
	var spec, placement, pgids string
	var sub, start, fin, ckpt int64
	if err := row.Scan(&r.Name, &r.Team, &r.Seq, &spec, &r.State, &sub, &start, &fin, &ckpt, &r.Resumes, &r.Retries,
		&placement, &pgids, &r.Message); err != nil {
		return r, err
	}
	var col specColumn
	if err := json.Unmarshal([]byte(spec), &col); err != nil {
		return r, fmt.Errorf("task %s: stored spec unreadable: %w", r.Name, err)
	}
	r.Spec, r.IdempotencyKey, r.IdempotencyDigest, r.DeletedAt = col.TaskSpec, col.IdempotencyKey, col.IdempotencyDigest, col.DeletedAt
	if placement != "" {
		_ = json.Unmarshal([]byte(placement), &r.Placement)
	}
	if pgids != "" {
		_ = json.Unmarshal([]byte(pgids), &r.PGIDs)
	}
	r.SubmittedAt, r.StartedAt, r.FinishedAt, r.CheckpointAt = Time(sub), Time(start), Time(fin), Time(ckpt)
	return r, nil
}

// specColumn is what the spec column holds: the spec's fields, and the
// record's idempotency key (with its submission's digest) and deletion
// time beside them (a column of its own would need a migration of both
// stores for a rarely set value).
type specColumn struct {
	model.TaskSpec
	IdempotencyKey    string    `json:"idempotencyKey,omitempty"`
	IdempotencyDigest string    `json:"idempotencyDigest,omitempty"`
	DeletedAt         time.Time `json:"deletedAt,omitzero"`
}

// TaskSpec is a task's spec column.
func TaskSpec(r model.TaskRecord) (string, error) {
	spec, err := json.Marshal(specColumn{r.Spec, r.IdempotencyKey, r.IdempotencyDigest, r.DeletedAt.UTC()})
	return string(spec), err
}

// TaskUpdateColumns are a task's mutable columns, which an update sets
// (UPDATE tasks SET ... WHERE seq = r.Seq) to TaskUpdateValues(r).
var TaskUpdateColumns = []string{"spec", "state", "started_at", "finished_at", "checkpoint_at", "resumes", "retries", "placement", "pgids", "message", "deleted"}

// TaskUpdateValues are the values of TaskUpdateColumns, in their order;
// placement is "" when the task has none.
func TaskUpdateValues(r model.TaskRecord) ([]any, error) {
	spec, err := TaskSpec(r)
	if err != nil {
		return nil, err
	}
	var placement []byte
	if len(r.Placement) > 0 {
		if placement, err = json.Marshal(r.Placement); err != nil {
			return nil, err
		}
	}
	pg, err := json.Marshal(r.PGIDs)
	if err != nil {
		return nil, err
	}
	return []any{spec, string(r.State), Nanos(r.StartedAt), Nanos(r.FinishedAt), Nanos(r.CheckpointAt), r.Resumes, r.Retries,
		string(placement), string(pg), r.Message, deletedFlag(r)}, nil
}

// deletedFlag is the deleted column: 1 for a deleted task.
func deletedFlag(r model.TaskRecord) int {
	if r.Deleted() {
		return 1
	}
	return 0
}

// Assign is the SET list "col = placeholder, ..." of cols, with the
// adapter's placeholder for the i-th parameter (from 1).
func Assign(cols []string, placeholder Placeholder) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c + "=" + placeholder(i+1)
	}
	return strings.Join(parts, ", ")
}

// EventColumns are the columns of an event that Event reads.
const EventColumns = `id, task, task_seq, team, at, kind, message`

// Event reads a row of EventColumns.
func Event(row Row) (model.Event, error) {
	var e model.Event
	var at int64
	err := row.Scan(&e.ID, &e.Task, &e.TaskSeq, &e.Team, &at, &e.Kind, &e.Message)
	e.At = Time(at)
	return e, err
}

// TokenColumns are the columns of a token that Token reads (never its
// hash).
const TokenColumns = `id, role, team, note, created_at, revoked_at`

// String reads a row of one text column.
func String(row Row) (string, error) {
	var s string
	err := row.Scan(&s)
	return s, err
}

// Token reads a row of TokenColumns.
func Token(row Row) (model.Token, error) {
	var tok model.Token
	var created, revoked int64
	err := row.Scan(&tok.ID, &tok.Role, &tok.Team, &tok.Note, &created, &revoked)
	tok.CreatedAt, tok.RevokedAt = Time(created), Time(revoked)
	return tok, err
}

// LiveToken reads a row of TokenColumns for authentication: a token that
// is not there (the adapter's noRows error) or is revoked is
// model.ErrNotFound alike.
func LiveToken(row Row, noRows error) (model.Token, error) {
	tok, err := Token(row)
	if (err != nil && errors.Is(err, noRows)) || (err == nil && !tok.RevokedAt.IsZero()) {
		return model.Token{}, fmt.Errorf("token: %w", model.ErrNotFound)
	}
	return tok, err
}

// AuditColumns are the columns of an audit entry that Audit reads.
const AuditColumns = `id, at, actor, action, team, target, result`

// Audit reads a row of AuditColumns.
func Audit(row Row) (model.AuditEntry, error) {
	var e model.AuditEntry
	var at int64
	err := row.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Team, &e.Target, &e.Result)
	e.At = Time(at)
	return e, err
}

// RunColumns are the columns of a run that Run reads.
const RunColumns = `id, task, team, instance_type, priority, gpus, vcpu, borrowed_gpus, started_at, ended_at, outcome`

// Run reads a row of RunColumns.
func Run(row Row) (model.Run, error) {
	var r model.Run
	var st, en int64
	err := row.Scan(&r.ID, &r.Task, &r.Team, &r.InstanceType, &r.Priority, &r.GPUs, &r.VCPU, &r.BorrowedGPUs, &st, &en, &r.Outcome)
	r.StartedAt, r.EndedAt = Time(st), Time(en)
	return r, err
}

// SampleColumns are the columns of a utilisation sample that Sample reads.
const SampleColumns = `at, instance_type, gpus, gpus_used, vcpu, vcpu_used, mem_gib, mem_used_gib`

// Sample reads a row of SampleColumns.
func Sample(row Row) (model.Sample, error) {
	var x model.Sample
	var at int64
	err := row.Scan(&at, &x.InstanceType, &x.GPUs, &x.GPUsUsed, &x.VCPU, &x.VCPUUsed, &x.MemGiB, &x.MemUsedGiB)
	x.At = Time(at)
	return x, err
}

// SessionColumns are the columns of a server session that Session reads.
const SessionColumns = `started_at, stopped_at`

// Session reads a row of SessionColumns.
func Session(row Row) (model.Session, error) {
	var a, b int64
	err := row.Scan(&a, &b)
	return model.Session{StartedAt: Time(a), StoppedAt: Time(b)}, err
}

// ClusterQuery reads the stored cluster configuration; Cluster decodes it.
const ClusterQuery = `SELECT doc FROM cluster WHERE id=1`

// Cluster reads ClusterQuery's row: ok is false where there is none (the
// adapter's noRows error).
func Cluster(row Row, noRows error) (c model.Cluster, ok bool, err error) {
	var doc string
	err = row.Scan(&doc)
	if errors.Is(err, noRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, err
	}
	return c, true, json.Unmarshal([]byte(doc), &c)
}
