package sqlrow

import (
	"context"
	"strconv"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Placeholder is an adapter's syntax for its i-th statement parameter
// (from 1): "?" for SQLite, "$i" for PostgreSQL.
type Placeholder func(i int) string

// Question is SQLite's placeholder.
func Question(int) string { return "?" }

// Dollar is PostgreSQL's placeholder.
func Dollar(i int) string { return "$" + strconv.Itoa(i) }

// AuditQuery is the query of the audit log that f selects (oldest first,
// at most f.Limit entries, 1000 if unset) and its arguments.
func AuditQuery(f model.AuditFilter, ph Placeholder) (string, []any) {
	args := []any{f.AfterID}
	q := `SELECT ` + AuditColumns + ` FROM audit WHERE id > ` + ph(1)
	add := func(cond string, v any) {
		args = append(args, v)
		q += " AND " + cond + " " + ph(len(args))
	}
	if f.Team != "" {
		add("team =", f.Team)
	}
	if f.Target != "" {
		add("target =", f.Target)
	}
	if f.Actor != "" {
		add("actor =", f.Actor)
	}
	if f.Action != "" {
		add("action =", f.Action)
	}
	if !f.From.IsZero() {
		add("at >=", Nanos(f.From))
	}
	if !f.To.IsZero() {
		add("at <", Nanos(f.To))
	}
	if f.Limit <= 0 {
		f.Limit = 1000
	}
	args = append(args, f.Limit)
	return q + " ORDER BY id LIMIT " + ph(len(args)), args
}

// TokenTx is what the token writes need of an adapter's transaction.
type TokenTx interface {
	InsertToken(tok model.Token, hash string) error
	RevokeToken(id string, at time.Time) (bool, error)
	Audit(e model.AuditEntry) error
}

// Commit is an adapter's Commit: fn's writes in one durable transaction.
type Commit[T TokenTx] func(ctx context.Context, fn func(T) error) error

// CreateToken stores a token by its hash and its audit entry in one
// durable transaction.
func CreateToken[T TokenTx](ctx context.Context, commit Commit[T], tok model.Token, hash string, audit model.AuditEntry) error {
	return commit(ctx, func(tx T) error {
		if err := tx.InsertToken(tok, hash); err != nil {
			return err
		}
		return tx.Audit(audit)
	})
}

// RevokeToken revokes a token and records audit, its Result set to whether
// the token was live, in one durable transaction.
func RevokeToken[T TokenTx](ctx context.Context, commit Commit[T], id string, at time.Time, audit model.AuditEntry) (found bool, err error) {
	err = commit(ctx, func(tx T) error {
		if found, err = tx.RevokeToken(id, at); err != nil {
			return err
		}
		audit.Result = strconv.FormatBool(found)
		return tx.Audit(audit)
	})
	return found, err
}
