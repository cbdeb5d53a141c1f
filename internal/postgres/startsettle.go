package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// StartSettleTimeout bounds how long the store's first rebuild read waits
// for other sessions' transactions (waitForOthers).
const StartSettleTimeout = 30 * time.Second

// openTxn is another session's transaction that was open when this store
// first read its state.
type openTxn struct {
	pid   int32
	start time.Time // xact_start: the same pid in a later transaction is not waited for
	what  string    // for the log: application, state, wait
}

// othersOpenTxns are the transactions, open now, of other sessions of this
// role in this database that may still write taskgov's tables: a taskgov
// session's (application_name taskgov, which every session of the store
// sets) that has written (it has a transaction id: a read-only one, such
// as a task page's snapshot, is not waited for), or any that holds or
// awaits a write lock on a table. A backend
// frozen before it read its batch shows "idle" and is not among them.
const othersOpenTxns = `SELECT a.pid, a.xact_start,
	COALESCE(a.application_name, '') || ' ' || COALESCE(a.state, '') || COALESCE(' waiting on ' || a.wait_event_type, '')
	FROM pg_stat_activity a
	WHERE a.datname = current_database() AND a.usename = current_user AND a.pid <> pg_backend_pid()
	AND a.xact_start IS NOT NULL
	AND a.state IN ('active', 'idle in transaction', 'idle in transaction (aborted)', 'fastpath function call')
	AND (a.application_name = 'taskgov' AND a.backend_xid IS NOT NULL OR EXISTS (SELECT 1 FROM pg_locks l
		WHERE l.pid = a.pid AND l.locktype = 'relation'
		AND l.mode IN ('RowExclusiveLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')))
	ORDER BY a.pid`

// stillOpen says whether a transaction is still open (its backend busy in
// it: a backend that ended it shows a later xact_start, none, or is gone).
const stillOpen = `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND xact_start = $2
	AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)', 'fastpath function call'))`

// waitForOthers runs once, before the first read the engine rebuilds its
// state from. A server that restarts, or starts beside a crashed one,
// while a backend of the earlier process is stuck in a commit (a paused
// host, a lock wait, a synchronous standby) would otherwise read the store
// before that COMMIT lands, miss the task and hand its sequence number out
// again (the in-memory fence of unsettled.go dies with the process). It
// waits until each transaction of othersOpenTxns open at the first look has
// ended, at most s.startSettle; past that it logs an error naming the
// backends and returns nil: the server reads and serves, and a commit that
// lands later costs one submission a 503 and the engine a reread, as
// before. Under leader election a takeover already waits for the old
// leader's commits (the term row's share lock, lease.go); this wait is the
// single replica's fence. It fails only as the database does (the read
// then fails, and runs it again).
func (s *Store) waitForOthers(ctx context.Context) error {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.startSettled {
		return nil
	}
	open, err := s.openTxns(ctx)
	if err != nil {
		return fmt.Errorf("looking for other sessions' open transactions before reading the store: %w", err)
	}
	if len(open) > 0 {
		began := time.Now()
		bound := s.startSettle
		s.logger().Warn("waiting for other sessions' open transactions to end before reading the store: one may be an earlier server's commit that has not landed yet",
			"transactions", describe(open), "bound", bound)
		waitCtx, cancel := context.WithTimeout(ctx, bound)
		left, err := s.waitEnded(waitCtx, open)
		boundPassed := waitCtx.Err() != nil && ctx.Err() == nil
		cancel()
		switch {
		case err != nil && !boundPassed: // the database failed, or ctx ended
			return fmt.Errorf("waiting for other sessions' open transactions before reading the store: %w", err)
		case len(left) > 0:
			s.logger().Error("other sessions' transactions are still open; reading the store anyway: a commit of theirs that lands later is seen at the next reread, and may cost one submission a 503 (duplicate sequence number) first",
				"transactions", describe(left), "waited", time.Since(began).Round(time.Millisecond),
				"fix", "if they are stuck, end them: SELECT pg_terminate_backend(pid)")
		default:
			s.logger().Info("other sessions' transactions ended; reading the store", "waited", time.Since(began).Round(time.Millisecond))
		}
	}
	s.startSettled = true
	return nil
}

// openTxns runs othersOpenTxns.
func (s *Store) openTxns(ctx context.Context) ([]openTxn, error) {
	rows, err := s.pool.Query(ctx, othersOpenTxns)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []openTxn
	for rows.Next() {
		var o openTxn
		if err := rows.Scan(&o.pid, &o.start, &o.what); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// waitEnded polls until every transaction of open has ended or ctx ends;
// it returns those still open then. A failed poll counts them as open.
func (s *Store) waitEnded(ctx context.Context, open []openTxn) ([]openTxn, error) {
	for len(open) > 0 {
		var left []openTxn
		for _, o := range open {
			var busy bool
			if err := s.pool.QueryRow(ctx, stillOpen, o.pid, o.start).Scan(&busy); err != nil {
				return open, err
			}
			if busy {
				left = append(left, o)
			}
		}
		open = left
		if len(open) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return open, ctx.Err()
		case <-time.After(settlePoll):
		}
	}
	return nil, nil
}

func describe(txns []openTxn) string {
	parts := make([]string, len(txns))
	for i, o := range txns {
		parts[i] = fmt.Sprintf("pid %d (%s, since %s)", o.pid, o.what, o.start.UTC().Format(time.RFC3339))
	}
	return strings.Join(parts, "; ")
}

// SetLog sets where the store logs what it waits for at start; the
// default is slog.Default().
func (s *Store) SetLog(l *slog.Logger) { s.log = l }

func (s *Store) logger() *slog.Logger {
	if s.log != nil {
		return s.log
	}
	return slog.Default()
}
