package sqlite

import (
	"context"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

// CreateToken stores a token by its hash and its audit entry, in one
// durable transaction.
func (s *Store) CreateToken(ctx context.Context, tok model.Token, hash string, audit model.AuditEntry) error {
	return sqlrow.CreateToken(ctx, s.Commit, tok, hash, audit)
}

// RevokeTokenAudited revokes a token and records audit, its Result set to
// whether the token was live, in one durable transaction.
func (s *Store) RevokeTokenAudited(ctx context.Context, id string, at time.Time, audit model.AuditEntry) (found bool, err error) {
	return sqlrow.RevokeToken(ctx, s.Commit, id, at, audit)
}
