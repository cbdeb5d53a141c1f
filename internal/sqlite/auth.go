package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// InsertToken stores a token by its hash.
func (t *Tx) InsertToken(tok model.Token, hash string) error {
	_, err := t.tx.Exec(`INSERT INTO tokens(id, hash, role, team, note, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		tok.ID, hash, tok.Role, tok.Team, tok.Note, nanos(tok.CreatedAt))
	return err
}

// RevokeToken marks a token revoked; it reports whether it existed.
func (t *Tx) RevokeToken(id string, at time.Time) (bool, error) {
	res, err := t.tx.Exec(`UPDATE tokens SET revoked_at=? WHERE id=? AND revoked_at=0`, nanos(at), id)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// TokenByHash finds a live token by the hash of its secret.
func (s *Store) TokenByHash(ctx context.Context, hash string) (model.Token, error) {
	var tok model.Token
	var created, revoked int64
	err := s.r.QueryRowContext(ctx, `SELECT id, role, team, note, created_at, revoked_at FROM tokens WHERE hash=?`, hash).
		Scan(&tok.ID, &tok.Role, &tok.Team, &tok.Note, &created, &revoked)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && revoked != 0) {
		return tok, fmt.Errorf("token: %w", model.ErrNotFound)
	}
	tok.CreatedAt = fromNanos(created)
	return tok, err
}

// Tokens lists all tokens (never their secrets).
func (s *Store) Tokens(ctx context.Context) ([]model.Token, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, role, team, note, created_at, revoked_at FROM tokens ORDER BY created_at, id`)
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
	_, err := t.tx.Exec(`INSERT INTO audit(at, actor, action, team, target, result) VALUES (?, ?, ?, ?, ?, ?)`,
		nanos(e.At), e.Actor, e.Action, e.Team, e.Target, e.Result)
	return err
}

// AuditLog returns matching audit entries, oldest first.
func (s *Store) AuditLog(ctx context.Context, f model.AuditFilter) ([]model.AuditEntry, error) {
	q := `SELECT id, at, actor, action, team, target, result FROM audit WHERE id > ?`
	args := []any{f.AfterID}
	add := func(cond string, v any) {
		q += " AND " + cond
		args = append(args, v)
	}
	if f.Team != "" {
		add("team = ?", f.Team)
	}
	if f.Target != "" {
		add("target = ?", f.Target)
	}
	if f.Actor != "" {
		add("actor = ?", f.Actor)
	}
	if !f.From.IsZero() {
		add("at >= ?", nanos(f.From))
	}
	if !f.To.IsZero() {
		add("at < ?", nanos(f.To))
	}
	if f.Limit <= 0 {
		f.Limit = 1000
	}
	q += " ORDER BY id LIMIT ?"
	args = append(args, f.Limit)
	rows, err := s.r.QueryContext(ctx, q, args...)
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
		res, err := tx.tx.Exec(`DELETE FROM audit WHERE at < ?`, nanos(before))
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		_, err = tx.tx.Exec(`DELETE FROM events WHERE at < ?`, nanos(before))
		return err
	})
	return n, err
}
