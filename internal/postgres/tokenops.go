package postgres

import (
	"context"
	"strconv"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// CreateToken stores a token by its hash and its audit entry, in one
// durable transaction.
func (s *Store) CreateToken(ctx context.Context, tok model.Token, hash string, audit model.AuditEntry) error {
	return s.Commit(ctx, func(tx *Tx) error {
		if err := tx.InsertToken(tok, hash); err != nil {
			return err
		}
		return tx.Audit(audit)
	})
}

// RevokeTokenAudited revokes a token and records audit, its Result set to
// whether the token was live, in one durable transaction.
func (s *Store) RevokeTokenAudited(ctx context.Context, id string, at time.Time, audit model.AuditEntry) (found bool, err error) {
	err = s.Commit(ctx, func(tx *Tx) error {
		if found, err = tx.RevokeToken(id, at); err != nil {
			return err
		}
		audit.Result = strconv.FormatBool(found)
		return tx.Audit(audit)
	})
	return found, err
}
