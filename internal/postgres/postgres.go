package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/taskgov/taskgov/internal/model"
)

// Store is the database. Writes go through Commit, one transaction per call;
// reads may run concurrently from any goroutine. Several processes may open
// the same database: only the one whose term is current may commit once the
// store is fenced (Fence).
type Store struct {
	pool    *pgxpool.Pool
	term    atomic.Int64 // 0: not fenced (a single replica)
	timeout time.Duration
	names   model.NameIndex // the newest task of every name (names.go); reloaded after Fence
	unknown unsettled       // backends of commits whose outcome is unknown (unsettled.go)
	// The first rebuild read waits for other sessions' transactions, at
	// most startSettle (startsettle.go); log says so.
	startMu      sync.Mutex
	startSettled bool
	startSettle  time.Duration
	log          *slog.Logger
	// afterPageRead, if set (tests only), runs in TaskPage between the page
	// and its counts.
	afterPageRead func()
}

// ErrFenced is returned by Commit when another replica has taken the lease
// since this store's term began: this replica is deposed and must stop
// acting. Nothing of the refused transaction is written.
var ErrFenced = errors.New("deposed: another replica holds the leader lease now, and the database refused this replica's commit")

// IsDSN reports whether s names a PostgreSQL database (a postgres:// or
// postgresql:// URL).
func IsDSN(s string) bool {
	for _, p := range []string{"postgres://", "postgresql://"} {
		if len(s) >= len(p) && s[:len(p)] == p {
			return true
		}
	}
	return false
}

// CommitTimeout bounds one Commit: a commit that cannot finish in this time
// (the database is unreachable) fails instead of hanging the writer.
const CommitTimeout = 10 * time.Second

// IdleInTransactionTimeout is set on every session: a transaction left open
// by a replica that was cut off mid-commit is ended by the server after this
// long, so that it cannot hold the term row's lock and block a takeover.
const IdleInTransactionTimeout = 2 * time.Second

// Open connects to the database named by dsn and migrates it. It refuses a
// database that holds an unfinished move from SQLite (ErrImportUnfinished).
func Open(ctx context.Context, dsn string) (*Store, error) {
	s, err := OpenForImport(ctx, dsn)
	if err != nil {
		return nil, err
	}
	var holder int
	err = s.pool.QueryRow(ctx, `SELECT holder FROM sqlite_import WHERE id = 1 AND NOT finished`).Scan(&holder)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, nil
	}
	s.Close()
	if err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: a snapshot was copied while the server on SQLite (%s) still ran; stop that server, then run `taskgov store migrate --finish --from sqlite:PATH --to ...` to copy what it wrote since (until then no server may use this database)",
		ErrImportUnfinished, HolderName(holder))
}

// OpenForImport is Open for `taskgov store migrate`, which may open a
// database whose import is unfinished.
func OpenForImport(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("the PostgreSQL DSN is not valid: %w (use postgres://USER:PASSWORD@HOST:PORT/DATABASE)", redact(err))
	}
	if cfg.MaxConns < 8 {
		cfg.MaxConns = 8
	}
	rt := cfg.ConnConfig.RuntimeParams
	rt["idle_in_transaction_session_timeout"] = fmt.Sprint(IdleInTransactionTimeout.Milliseconds())
	rt["application_name"] = "taskgov"
	// Acknowledged means durable: whatever the server's default, taskgov's
	// sessions wait for the commit to be flushed (and, where synchronous
	// standbys are configured, for them as the server's setting says).
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		var sc string
		if err := c.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&sc); err != nil {
			return err
		}
		if sc == "off" {
			_, err := c.Exec(ctx, `SET synchronous_commit = on`)
			return err
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", redact(err))
	}
	s := &Store{pool: pool, timeout: CommitTimeout, startSettle: StartSettleTimeout}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("cannot connect to PostgreSQL at %s:%d (database %q): %w; start PostgreSQL, or correct the DSN's host, port, database or user, and try again",
				cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database, redact(err))
		}
		return nil, err
	}
	return s, nil
}

// redact keeps a password out of an error that quotes the DSN.
func redact(err error) error {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		return errors.New("cannot parse the DSN")
	}
	return err
}

// Close closes the connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// Fence makes every later Commit check, in its own transaction, that term
// is still the lease's current term (0: stop checking).
func (s *Store) Fence(term int64) {
	s.term.Store(term)
	s.names.Invalidate()
}

func (s *Store) migrate(ctx context.Context) error { return s.migrateTo(ctx, len(migrations)) }

// migrateTo applies the migrations up to version n, as a taskgov that knew
// only those would.
func (s *Store) migrateTo(ctx context.Context, n int) error {
	known := migrations[:n]
	for {
		done := false
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			// Replicas that start together migrate one at a time.
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7270727)`); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version(version INTEGER NOT NULL)`); err != nil {
				return err
			}
			var v int
			if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v); err != nil {
				return err
			}
			if v > len(known) {
				return fmt.Errorf("the database has schema version %d, newer than this taskgov (%d); use a newer taskgov", v, len(known))
			}
			if v == len(known) {
				done = true
				return nil
			}
			if _, err := tx.Exec(ctx, known[v]); err != nil {
				return fmt.Errorf("migration %d: %w", v+1, err)
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_version(version) VALUES ($1)`, v+1)
			return err
		})
		if err != nil {
			return fmt.Errorf("migrating: %w", err)
		}
		if done {
			return nil
		}
	}
}

// Tx is one write transaction on one connection. Writes are queued and
// sent in one round trip (a pipeline) when a read needs them or at commit,
// which then costs one round trip in all: BEGIN, the term check, the writes
// and COMMIT go together. Appends (tasks, events, audit entries) are
// gathered into one multi-row statement per table (appends.go). Checks that
// must fail the transaction (the term, the name rule) raise an error in the
// database, so that the COMMIT queued behind them never commits.
type Tx struct {
	ctx      context.Context
	tx       *pgxpool.Conn
	batch    *pgx.Batch
	fence    int64 // the term checked first; 0: none
	rows     appends
	names    []model.NameRow // task writes, for Store.names once committed
	inserted []taskName      // the tasks inserted, to explain a refusal
}

// exec queues a write after the appends gathered so far.
func (t *Tx) exec(sql string, args ...any) {
	t.queueTasks()
	t.batch.Queue(sql, args...)
}

// flush sends what is queued, the gathered appends included, and reads
// every result.
func (t *Tx) flush() error {
	t.queueTasks()
	t.queueLogs()
	if t.batch.Len() == 0 {
		return nil
	}
	b := t.batch
	t.batch = &pgx.Batch{}
	br := t.tx.SendBatch(t.ctx, b)
	for i := 0; i < b.Len(); i++ {
		tag, err := br.Exec()
		if err != nil {
			br.Close()
			return t.explain(err)
		}
		if tag.String() == "ROLLBACK" { // COMMIT of a failed transaction
			br.Close()
			return errors.New("commit: the transaction was rolled back")
		}
	}
	return br.Close()
}

// Errors raised by taskgov_refuse (migration 2).
const (
	refusedFenced = "taskgov: fenced"
	refusedName   = "taskgov: name"
)

// explain turns the database's refusals into taskgov's errors.
func (t *Tx) explain(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Message {
	case refusedFenced:
		return fmt.Errorf("%w (this replica's term %d, the lease's %s)", ErrFenced, t.fence, pe.Detail)
	case refusedName:
		return errNameRefused
	}
	return err
}

var errNameRefused = errors.New("a task's name is refused by the name rule")

// RollbackTimeout bounds the ROLLBACK of a failed Commit and the reads that
// explain a refused name: a database that stopped answering (a paused host)
// must not hold the engine's loop, which waits for Commit, for ever.
const RollbackTimeout = 5 * time.Second

// undo rolls back the transaction c is in, if any, within RollbackTimeout.
// A connection that never sent BEGIN (its batch failed before it was sent)
// is idle and needs nothing.
func undo(c *pgx.Conn) error {
	if c.IsClosed() || c.PgConn().TxStatus() == 'I' {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), RollbackTimeout)
	defer cancel()
	_, err := c.Exec(ctx, `ROLLBACK`)
	return err
}

// Commit runs fn in one transaction and commits it durably: when Commit
// returns nil, the server has flushed the commit (synchronous_commit on).
// Callers batch many writes into one Commit to share the flush. A fenced
// store's commit is refused with ErrFenced once its term is not current.
func (s *Store) Commit(ctx context.Context, fn func(*Tx) error) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	// A connection left inside a transaction (a failed batch whose
	// ROLLBACK could not be sent) is closed by the pool on release.
	defer conn.Release()
	t := &Tx{ctx: ctx, tx: conn, batch: &pgx.Batch{}}
	t.batch.Queue(`BEGIN`)
	if term := s.term.Load(); term > 0 {
		// The share lock makes a takeover (which updates the row) wait for
		// this commit, and this check wait for a takeover in flight.
		t.fence = term
		t.batch.Queue(`SELECT CASE WHEN term = $1 THEN 0 ELSE taskgov_refuse('`+refusedFenced+`', term::text) END
			FROM leader_term WHERE id = 1 FOR SHARE`, term)
	}
	rollback := func(err error) error {
		if rerr := undo(conn.Conn()); rerr != nil {
			// The pool closes the connection on release (still in a
			// transaction, or already closed by a timeout).
			return fmt.Errorf("%w (and the rollback failed: %v)", err, rerr)
		}
		if errors.Is(err, errNameRefused) {
			return t.nameError()
		}
		return err
	}
	if err := fn(t); err != nil {
		return rollback(err)
	}
	t.queueTasks()
	t.queueLogs()
	t.batch.Queue(`COMMIT`)
	pid := conn.Conn().PgConn().PID()
	if err := t.flush(); err != nil {
		// The outcome may be unknown (a cut connection after COMMIT was
		// sent): reload the name index on next use, as the SQLite adapter
		// does, rather than miss names the database may now hold.
		s.names.Invalidate()
		err = rollback(err)
		if conn.Conn().IsClosed() {
			s.unknown.add(pid) // rereads wait for its backend (unsettled.go)
		}
		return err
	}
	s.names.Committed(t.names)
	return nil
}
