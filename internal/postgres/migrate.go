package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"

	_ "modernc.org/sqlite" // the SQLite database an installation moves from
)

// copyTables are the tables ImportSQLite copies, in order, with their
// columns (the same names in both schemas) and whether their id is an
// identity column whose sequence must continue after the copied ids.
var copyTables = []struct {
	name, cols string
	identity   bool
}{
	{"cluster", "id, doc", false},
	{"tasks", "name, team, seq, spec, state, submitted_at, started_at, finished_at, checkpoint_at, resumes, retries, placement, pgids, message, deleted", false},
	{"events", "id, task, task_seq, team, at, kind, message", true},
	{"tokens", "id, hash, role, team, note, created_at, revoked_at", false},
	{"audit", "id, at, actor, action, team, target, result", true},
	{"runs", "id, task, team, instance_type, priority, gpus, vcpu, borrowed_gpus, started_at, ended_at, outcome", true},
	{"sessions", "id, started_at, stopped_at", true},
	{"samples", "resolution, at, instance_type, gpus, gpus_used, vcpu, vcpu_used, mem_gib, mem_used_gib", false},
	{"preemptions", "id, at, task, team, reason, preemptor, preemptor_team, gpus, work_gpu_seconds, restart_gpu_seconds", true},
}

// Counts is the number of rows per table.
type Counts map[string]int64

func (c Counts) String() string {
	var parts []string
	for _, t := range copyTables {
		parts = append(parts, fmt.Sprintf("%s %d", t.name, c[t.name]))
	}
	return strings.Join(parts, ", ")
}

// Import is the outcome of ImportSQLite.
type Import struct {
	Counts Counts // rows moved, equal to the snapshot's
	// Holder is the process that still had the SQLite database open when
	// the copy ended (a running server), or 0. If it is set, the import is
	// unfinished: what that server acknowledges after the snapshot is not
	// moved yet, and servers refuse the database (ErrImportUnfinished)
	// until FinishSQLiteImport has copied it, with the server stopped.
	Holder int
}

// ErrImportUnfinished is returned by Open for a database that holds a
// snapshot of a SQLite installation whose server was still running: serving
// it would lose what that server acknowledged since, and two servers would
// act on the same cluster.
var ErrImportUnfinished = errors.New("this PostgreSQL database holds an unfinished move from SQLite")

// ImportSQLite copies every row of the SQLite database at path into this
// (empty) database in one transaction, from one consistent snapshot of the
// source, and checks that every table then holds as many rows as the
// snapshot did. It refuses a target that already holds tasks or tokens, and
// then changes nothing. The source is only read, so a running server may go
// on using it (WAL lets readers share the file with its writer on one
// host); the import is then unfinished (Import.Holder).
func (s *Store) ImportSQLite(ctx context.Context, path string) (Import, error) {
	var res Import
	err := s.fromSQLite(ctx, path, func(rtx *sql.Tx, tx pgx.Tx, probe *shmProbe) error {
		var existing int64
		if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM tasks) + (SELECT count(*) FROM tokens) + (SELECT count(*) FROM sqlite_import)`).Scan(&existing); err != nil {
			return err
		}
		if existing > 0 {
			return fmt.Errorf("the target database is not empty (%d tasks, tokens and earlier moves): move into an empty database (it is created on the first connection)", existing)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM cluster`); err != nil {
			return err
		}
		for _, t := range copyTables {
			if _, err := copyRows(ctx, rtx, tx, t.name, t.cols, "", nil); err != nil {
				return fmt.Errorf("copying %s: %w", t.name, err)
			}
		}
		var m marks
		if err := rtx.QueryRowContext(ctx, `SELECT COALESCE((SELECT MAX(seq) FROM tasks), 0), COALESCE((SELECT name FROM tasks ORDER BY seq DESC LIMIT 1), ''),
			COALESCE((SELECT MAX(id) FROM events), 0), COALESCE((SELECT MAX(id) FROM audit), 0),
			COALESCE((SELECT MAX(id) FROM runs), 0), COALESCE((SELECT MAX(id) FROM sessions), 0)`).
			Scan(&m.maxSeq, &m.seqName, &m.events, &m.audit, &m.runs, &m.sessions); err != nil {
			return err
		}
		// Checked last: a server that opened the file during the copy
		// counts too.
		holder, err := probe.holder()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO sqlite_import VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8)`,
			holder == 0, holder, m.maxSeq, m.seqName, m.events, m.audit, m.runs, m.sessions); err != nil {
			return err
		}
		res.Holder = holder
		res.Counts, err = countCheck(ctx, rtx, tx)
		return err
	})
	return res, err
}

// marks are where a snapshot ended: the newest task and ids copied.
type marks struct {
	maxSeq                        int64
	seqName                       string
	events, audit, runs, sessions int64
}

// fromSQLite runs fn with a read transaction on the SQLite database at path
// (one snapshot of every table), a PostgreSQL transaction that commits if
// fn returns nil (identity sequences then continue after the copied ids),
// and the probe that says whether a server has the file open.
func (s *Store) fromSQLite(ctx context.Context, path string, fn func(*sql.Tx, pgx.Tx, *shmProbe) error) error {
	probe := &shmProbe{path: path}
	defer probe.close() // after src.Close, below: see shmProbe
	src, err := sql.Open("sqlite", "file:"+url.PathEscape(path)+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer src.Close()
	var version int
	if err := src.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&version); err != nil {
		return fmt.Errorf("%s is not a taskgov database: %w", path, err)
	}
	const sqliteSchema = 8 // internal/sqlite's migrations this copy knows
	if version != sqliteSchema {
		return fmt.Errorf("%s has schema version %d; this taskgov moves version %d: start and stop the matching taskgov server on it first", path, version, sqliteSchema)
	}
	// One read transaction: every table from the same snapshot.
	rtx, err := src.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer rtx.Rollback()
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := fn(rtx, tx, probe); err != nil {
			return err
		}
		for _, t := range copyTables {
			if t.identity {
				if _, err := tx.Exec(ctx, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%s', 'id'), GREATEST((SELECT MAX(id) FROM %s), 1))`, t.name, t.name)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// countCheck compares every table's rows in the transaction with the
// snapshot's, so that a mismatch rolls the copy back.
func countCheck(ctx context.Context, rtx *sql.Tx, tx pgx.Tx) (Counts, error) {
	got := Counts{}
	for _, t := range copyTables {
		var want, n int64
		if err := rtx.QueryRowContext(ctx, `SELECT count(*) FROM `+t.name).Scan(&want); err != nil {
			return nil, err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM `+t.name).Scan(&n); err != nil {
			return nil, err
		}
		got[t.name] = n
		if n != want {
			return got, fmt.Errorf("count check failed, nothing was moved: %s has %d rows in PostgreSQL, %d in SQLite", t.name, n, want)
		}
	}
	return got, nil
}

// copyRows copies the rows of one table that match where (SQLite SQL after
// WHERE, with args; "" for all) in pipelined batches.
func copyRows(ctx context.Context, src *sql.Tx, dst pgx.Tx, name, cols, where string, args []any) (int64, error) {
	ncol := len(strings.Split(cols, ","))
	q := `SELECT ` + cols + ` FROM ` + name
	if where != "" {
		q += ` WHERE ` + where
	}
	rows, err := src.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	ph := make([]string, ncol)
	for i := range ph {
		ph[i] = fmt.Sprintf("$%d", i+1)
	}
	ins := `INSERT INTO ` + name + `(` + cols + `) OVERRIDING SYSTEM VALUE VALUES (` + strings.Join(ph, ", ") + `)`
	var n int64
	b := &pgx.Batch{}
	flush := func() error {
		if b.Len() == 0 {
			return nil
		}
		err := dst.SendBatch(ctx, b).Close()
		b = &pgx.Batch{}
		return err
	}
	for rows.Next() {
		vals := make([]any, ncol)
		ptrs := make([]any, ncol)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		for i, v := range vals {
			if bs, ok := v.([]byte); ok {
				vals[i] = string(bs)
			}
		}
		b.Queue(ins, vals...)
		n++
		if b.Len() == 1000 {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	return n, flush()
}
