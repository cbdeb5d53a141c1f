package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The leader lease is one row: the holder (its advertise URL), the term
// (raised by every takeover) and an expiry set by the database's own clock,
// so that replicas' clocks never have to agree. A takeover raises the term
// in the fence row too, in the same transaction, after every commit still
// checking the old term has finished; from then on the old leader's commits
// are refused (Commit, ErrFenced).
//
// Why a lease row and not an advisory lock: a session's advisory lock goes
// the moment the database notices the session is gone, which may be before
// the old leader notices it lost its connection; a lease expires at a known
// time, and a leader that cannot renew stops acting well before it does.

// LeaseState is the lease as the database sees it.
type LeaseState struct {
	Holder string
	Term   int64
	Valid  bool // not expired
}

// Lease reads the lease.
func (s *Store) Lease(ctx context.Context) (LeaseState, error) {
	var l LeaseState
	err := s.pool.QueryRow(ctx, `SELECT holder, term, expires_at > clock_timestamp() FROM leader_lease WHERE id = 1`).
		Scan(&l.Holder, &l.Term, &l.Valid)
	return l, err
}

// Acquire takes the lease for holder for ttl if it has expired (or was
// released), raising the term; ok is false while another holds it.
func (s *Store) Acquire(ctx context.Context, holder string, ttl time.Duration) (term int64, ok bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE leader_lease SET holder = $1, term = term + 1,
			expires_at = clock_timestamp() + make_interval(secs => $2)
			WHERE id = 1 AND expires_at <= clock_timestamp() RETURNING term`, holder, ttl.Seconds()).Scan(&term)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		// Waits for the commits that hold the old term's share lock.
		_, err = tx.Exec(ctx, `UPDATE leader_term SET term = $1 WHERE id = 1`, term)
		return err
	})
	if err != nil {
		return 0, false, fmt.Errorf("taking the leader lease: %w", err)
	}
	return term, ok, nil
}

// Renew extends the lease of term by ttl from now; ok is false if the
// term is no longer current (another replica took over).
func (s *Store) Renew(ctx context.Context, term int64, ttl time.Duration) (ok bool, err error) {
	tag, err := s.pool.Exec(ctx, `UPDATE leader_lease SET expires_at = clock_timestamp() + make_interval(secs => $2)
		WHERE id = 1 AND term = $1`, term, ttl.Seconds())
	if err != nil {
		return false, fmt.Errorf("renewing the leader lease: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// Release ends the lease of term now, so that a standby takes over without
// waiting for it to expire.
func (s *Store) Release(ctx context.Context, term int64) error {
	_, err := s.pool.Exec(ctx, `UPDATE leader_lease SET expires_at = 'epoch' WHERE id = 1 AND term = $1`, term)
	return err
}
