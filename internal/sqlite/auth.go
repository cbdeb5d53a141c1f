package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

// InsertToken stores a token by its hash.
func (t *Tx) InsertToken(tok model.Token, hash string) error {
	_, err := t.tx.Exec(`INSERT INTO tokens(id, hash, role, team, note, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		tok.ID, hash, tok.Role, tok.Team, tok.Note, sqlrow.Nanos(tok.CreatedAt))
	return err
}

// RevokeToken marks a token revoked; it reports whether it existed.
func (t *Tx) RevokeToken(id string, at time.Time) (bool, error) {
	res, err := t.tx.Exec(`UPDATE tokens SET revoked_at=? WHERE id=? AND revoked_at=0`, sqlrow.Nanos(at), id)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// RevokeTeamTokens revokes team's live tokens and returns their ids.
func (t *Tx) RevokeTeamTokens(team string, at time.Time) ([]string, error) {
	rows, err := t.tx.Query(`UPDATE tokens SET revoked_at=? WHERE team=? AND revoked_at=0 RETURNING id`, sqlrow.Nanos(at), team)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, sqlrow.String)
}

// TokenByHash finds a live token by the hash of its secret.
func (s *Store) TokenByHash(ctx context.Context, hash string) (model.Token, error) {
	return sqlrow.LiveToken(s.r.QueryRowContext(ctx, `SELECT `+sqlrow.TokenColumns+` FROM tokens WHERE hash=?`, hash), sql.ErrNoRows)
}

// Tokens lists all tokens (never their secrets).
func (s *Store) Tokens(ctx context.Context) ([]model.Token, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+sqlrow.TokenColumns+` FROM tokens ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, sqlrow.Token)
}

// Audit appends an audit entry.
func (t *Tx) Audit(e model.AuditEntry) error {
	_, err := t.tx.Exec(`INSERT INTO audit(at, actor, action, team, target, result) VALUES (?, ?, ?, ?, ?, ?)`,
		sqlrow.Nanos(e.At), e.Actor, e.Action, e.Team, e.Target, e.Result)
	return err
}

// AuditLog returns matching audit entries, oldest first.
func (s *Store) AuditLog(ctx context.Context, f model.AuditFilter) ([]model.AuditEntry, error) {
	q, args := sqlrow.AuditQuery(f, sqlrow.Question)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, sqlrow.Audit)
}

// PruneAudit deletes audit entries, task events and preemptions older than before; it
// returns how many audit entries went.
func (s *Store) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.Commit(ctx, func(tx *Tx) error {
		res, err := tx.tx.Exec(`DELETE FROM audit WHERE at < ?`, sqlrow.Nanos(before))
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		if _, err = tx.tx.Exec(`DELETE FROM events WHERE at < ?`, sqlrow.Nanos(before)); err != nil {
			return err
		}
		_, err = tx.tx.Exec(`DELETE FROM preemptions WHERE at < ?`, sqlrow.Nanos(before))
		return err
	})
	return n, err
}
