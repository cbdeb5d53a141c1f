package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/taskgov/taskgov/internal/model"
)

// InsertToken stores a token by its hash.
func (t *Tx) InsertToken(tok model.Token, hash string) error {
	t.exec(`INSERT INTO tokens(id, hash, role, team, note, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		tok.ID, hash, tok.Role, tok.Team, tok.Note, nanos(tok.CreatedAt))
	return nil
}

// RevokeToken marks a token revoked; it reports whether it existed.
func (t *Tx) RevokeToken(id string, at time.Time) (bool, error) {
	if err := t.flush(); err != nil {
		return false, err
	}
	tag, err := t.tx.Exec(t.ctx, `UPDATE tokens SET revoked_at=$1 WHERE id=$2 AND revoked_at=0`, nanos(at), id)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() > 0, nil
}

// TokenByHash finds a live token by the hash of its secret.
func (s *Store) TokenByHash(ctx context.Context, hash string) (model.Token, error) {
	var tok model.Token
	var created, revoked int64
	err := s.pool.QueryRow(ctx, `SELECT id, role, team, note, created_at, revoked_at FROM tokens WHERE hash=$1`, hash).
		Scan(&tok.ID, &tok.Role, &tok.Team, &tok.Note, &created, &revoked)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && revoked != 0) {
		return tok, fmt.Errorf("token: %w", model.ErrNotFound)
	}
	tok.CreatedAt = fromNanos(created)
	return tok, err
}

// Tokens lists all tokens (never their secrets).
func (s *Store) Tokens(ctx context.Context) ([]model.Token, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, role, team, note, created_at, revoked_at FROM tokens ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.Token
	for rows.Next() {
		var tok model.Token
		var created, revoked int64
		if err := rows.Scan(&tok.ID, &tok.Role, &tok.Team, &tok.Note, &created, &revoked); err != nil {
			return nil, err
		}
		tok.CreatedAt, tok.RevokedAt = fromNanos(created), fromNanos(revoked)
		out = append(out, tok)
	}
	return out, rows.Err()
}

// Audit appends an audit entry.
func (t *Tx) Audit(e model.AuditEntry) error {
	t.rows.addAudit(e)
	return nil
}

// AuditLog returns matching audit entries, oldest first.
func (s *Store) AuditLog(ctx context.Context, f model.AuditFilter) ([]model.AuditEntry, error) {
	q := `SELECT id, at, actor, action, team, target, result FROM audit WHERE id > $1`
	args := []any{f.AfterID}
	add := func(cond string, v any) {
		args = append(args, v)
		q += " AND " + cond + " $" + strconv.Itoa(len(args))
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
	if !f.From.IsZero() {
		add("at >=", nanos(f.From))
	}
	if !f.To.IsZero() {
		add("at <", nanos(f.To))
	}
	if f.Limit <= 0 {
		f.Limit = 1000
	}
	args = append(args, f.Limit)
	q += " ORDER BY id LIMIT $" + strconv.Itoa(len(args))
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.AuditEntry
	for rows.Next() {
		var e model.AuditEntry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Team, &e.Target, &e.Result); err != nil {
			return nil, err
		}
		e.At = fromNanos(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// PruneAudit deletes audit entries and task events older than before; it
// returns how many audit entries went.
func (s *Store) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.Commit(ctx, func(tx *Tx) error {
		if err := tx.flush(); err != nil {
			return err
		}
		tag, err := tx.tx.Exec(tx.ctx, `DELETE FROM audit WHERE at < $1`, nanos(before))
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		tx.exec(`DELETE FROM events WHERE at < $1`, nanos(before))
		return nil
	})
	return n, err
}
