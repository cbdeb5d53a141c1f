package postgres

import (
	"context"
	"database/sql"
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
	{"tasks", "name, team, seq, spec, state, submitted_at, started_at, finished_at, checkpoint_at, resumes, retries, placement, pgids, message", false},
	{"events", "id, task, task_seq, team, at, kind, message", true},
	{"tokens", "id, hash, role, team, note, created_at, revoked_at", false},
	{"audit", "id, at, actor, action, team, target, result", true},
	{"runs", "id, task, team, instance_type, priority, gpus, vcpu, borrowed_gpus, started_at, ended_at, outcome", true},
	{"sessions", "id, started_at, stopped_at", true},
	{"samples", "resolution, at, instance_type, gpus, gpus_used, vcpu, vcpu_used, mem_gib, mem_used_gib", false},
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

// ImportSQLite copies every row of the SQLite database at path into this
// (empty) database in one transaction, from one consistent snapshot of the
// source, and checks afterwards that every table holds as many rows as the
// snapshot did. It refuses a target that already holds tasks or tokens, and
// then changes nothing. The source is only read: a running server may keep
// using it, but what it writes after the snapshot is not copied.
func (s *Store) ImportSQLite(ctx context.Context, path string) (Counts, error) {
	src, err := sql.Open("sqlite", "file:"+url.PathEscape(path)+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	defer src.Close()
	var version int
	if err := src.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&version); err != nil {
		return nil, fmt.Errorf("%s is not a taskgov database: %w", path, err)
	}
	const sqliteSchema = 6 // internal/sqlite's migrations this copy knows
	if version != sqliteSchema {
		return nil, fmt.Errorf("%s has schema version %d; this taskgov moves version %d: start and stop the matching taskgov server on it first", path, version, sqliteSchema)
	}
	// One read transaction: every table from the same snapshot.
	rtx, err := src.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer rtx.Rollback()
	want := Counts{}
	got := Counts{}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var existing int64
		if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM tasks) + (SELECT count(*) FROM tokens)`).Scan(&existing); err != nil {
			return err
		}
		if existing > 0 {
			return fmt.Errorf("the target database already holds %d tasks and tokens: move into an empty database (it is created on the first connection)", existing)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM cluster`); err != nil {
			return err
		}
		for _, t := range copyTables {
			n, err := copyTable(ctx, rtx, tx, t.name, t.cols)
			if err != nil {
				return fmt.Errorf("copying %s: %w", t.name, err)
			}
			want[t.name] = n
			if t.identity {
				if _, err := tx.Exec(ctx, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%s', 'id'), GREATEST((SELECT MAX(id) FROM %s), 1))`, t.name, t.name)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, t := range copyTables {
		var n int64
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM `+t.name).Scan(&n); err != nil {
			return nil, err
		}
		got[t.name] = n
		if n != want[t.name] {
			return got, fmt.Errorf("count check failed: %s has %d rows in PostgreSQL, %d in SQLite", t.name, n, want[t.name])
		}
	}
	return got, nil
}

// copyTable copies the rows of one table in pipelined batches.
func copyTable(ctx context.Context, src *sql.Tx, dst pgx.Tx, name, cols string) (int64, error) {
	ncol := len(strings.Split(cols, ","))
	rows, err := src.QueryContext(ctx, `SELECT `+cols+` FROM `+name)
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
