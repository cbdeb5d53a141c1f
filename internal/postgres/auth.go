package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

// InsertToken stores a token by its hash.
func (t *Tx) InsertToken(tok model.Token, hash string) error {
	t.exec(`INSERT INTO tokens(id, hash, role, team, note, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		tok.ID, hash, tok.Role, tok.Team, tok.Note, sqlrow.Nanos(tok.CreatedAt))
	return nil
}

// RevokeToken marks a token revoked; it reports whether it existed.
func (t *Tx) RevokeToken(id string, at time.Time) (bool, error) {
	if err := t.flush(); err != nil {
		return false, err
	}
	tag, err := t.tx.Exec(t.ctx, `UPDATE tokens SET revoked_at=$1 WHERE id=$2 AND revoked_at=0`, sqlrow.Nanos(at), id)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() > 0, nil
}

// RevokeTeamTokens revokes team's live tokens and returns their ids.
func (t *Tx) RevokeTeamTokens(team string, at time.Time) ([]string, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(t.ctx, `UPDATE tokens SET revoked_at=$1 WHERE team=$2 AND revoked_at=0 RETURNING id`, sqlrow.Nanos(at), team)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, sqlrow.String)
}

// TokenByHash finds a live token by the hash of its secret.
func (s *Store) TokenByHash(ctx context.Context, hash string) (model.Token, error) {
	return sqlrow.LiveToken(s.pool.QueryRow(ctx, `SELECT `+sqlrow.TokenColumns+` FROM tokens WHERE hash=$1`, hash), pgx.ErrNoRows)
}

// Tokens lists all tokens (never their secrets).
func (s *Store) Tokens(ctx context.Context) ([]model.Token, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+sqlrow.TokenColumns+` FROM tokens ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, sqlrow.Token)
}

// Audit appends an audit entry.
func (t *Tx) Audit(e model.AuditEntry) error {
	t.rows.addAudit(e)
	return nil
}

// AuditLog returns matching audit entries, oldest first.
func (s *Store) AuditLog(ctx context.Context, f model.AuditFilter) ([]model.AuditEntry, error) {
	q, args := sqlrow.AuditQuery(f, sqlrow.Dollar)
	rows, err := s.pool.Query(ctx, q, args...)
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
		if err := tx.flush(); err != nil {
			return err
		}
		tag, err := tx.tx.Exec(tx.ctx, `DELETE FROM audit WHERE at < $1`, sqlrow.Nanos(before))
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		tx.exec(`DELETE FROM events WHERE at < $1`, sqlrow.Nanos(before))
		tx.exec(`DELETE FROM preemptions WHERE at < $1`, sqlrow.Nanos(before))
		return nil
	})
	return n, err
}
