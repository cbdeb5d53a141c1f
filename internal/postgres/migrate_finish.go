package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// FinishSQLiteImport completes an unfinished import (Import.Holder): with
// the server on SQLite stopped, it copies what that server wrote after the
// snapshot, in one transaction: new tasks, events, audit entries, runs and
// sessions; the tasks, runs and sessions that were still open then; the
// tokens, the cluster and the samples whole; and it deletes the events and
// audit entries that the server's retention deleted since. Then every
// table must hold as many rows as the SQLite database, or nothing changes;
// if they do, the import is finished and servers may use the database.
func (s *Store) FinishSQLiteImport(ctx context.Context, path string) (Counts, error) {
	running := func(probe *shmProbe) error {
		holder, err := probe.holder()
		if err == nil && holder != 0 {
			err = fmt.Errorf("a process (%s, the server on SQLite) still has %s open: stop it first (SIGTERM: it finishes its work and exits), then run this again; nothing was changed", HolderName(holder), path)
		}
		return err
	}
	first := &shmProbe{path: path}
	err := running(first)
	first.close() // no connection of this process has the file open yet
	if err != nil {
		return nil, err
	}
	var counts Counts
	err = s.fromSQLite(ctx, path, func(rtx *sql.Tx, tx pgx.Tx, probe *shmProbe) error {
		var m marks
		var finished bool
		err := tx.QueryRow(ctx, `SELECT finished, max_seq, seq_name, events_id, audit_id, runs_id, sessions_id FROM sqlite_import WHERE id = 1 FOR UPDATE`).
			Scan(&finished, &m.maxSeq, &m.seqName, &m.events, &m.audit, &m.runs, &m.sessions)
		if errors.Is(err, pgx.ErrNoRows) {
			return errors.New("this database holds no move from SQLite to finish: run `taskgov store migrate` without --finish first")
		}
		if err != nil {
			return err
		}
		if finished {
			return errors.New("the move from SQLite into this database is finished already; nothing was changed")
		}
		if m.maxSeq > 0 {
			var name string
			if err := rtx.QueryRowContext(ctx, `SELECT name FROM tasks WHERE seq = ?`, m.maxSeq).Scan(&name); err != nil || name != m.seqName {
				return fmt.Errorf("%s is not the database this move started from (its task number %d is not %q): name the same file; nothing was changed", path, m.maxSeq, m.seqName)
			}
		}
		for _, t := range []string{"cluster", "tokens", "samples", "preemptions"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+t); err != nil {
				return err
			}
			if _, err := copyRows(ctx, rtx, tx, t, colsOf(t), "", nil); err != nil {
				return fmt.Errorf("copying %s: %w", t, err)
			}
		}
		// Rows that were still open in the snapshot are copied again.
		for _, t := range []struct{ name, key, open string }{
			{"tasks", "seq", `state NOT IN ('Succeeded', 'Failed', 'Cancelled')`},
			{"runs", "id", `ended_at = 0`},
			{"sessions", "id", `stopped_at = 0`},
		} {
			after := map[string]int64{"tasks": m.maxSeq, "runs": m.runs, "sessions": m.sessions}[t.name]
			if err := recopy(ctx, rtx, tx, t.name, t.key, t.open, after); err != nil {
				return fmt.Errorf("copying %s: %w", t.name, err)
			}
		}
		// Logs: new entries; and those retention deleted from SQLite since
		// (the oldest: it deletes by time) go from PostgreSQL too.
		for _, t := range []struct {
			name  string
			after int64
		}{{"events", m.events}, {"audit", m.audit}} {
			var oldest sql.NullInt64
			if err := rtx.QueryRowContext(ctx, `SELECT MIN(at) FROM `+t.name).Scan(&oldest); err != nil {
				return err
			}
			del, arg := `DELETE FROM `+t.name+` WHERE at < $1`, any(oldest.Int64)
			if !oldest.Valid {
				del, arg = `DELETE FROM `+t.name+` WHERE id <= $1`, any(t.after)
			}
			if _, err := tx.Exec(ctx, del, arg); err != nil {
				return err
			}
			if _, err := copyRows(ctx, rtx, tx, t.name, colsOf(t.name), `id > ?`, []any{t.after}); err != nil {
				return fmt.Errorf("copying %s: %w", t.name, err)
			}
		}
		// A server started meanwhile would write after this snapshot.
		if err := running(probe); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE sqlite_import SET finished = true, holder = 0 WHERE id = 1`); err != nil {
			return err
		}
		counts, err = countCheck(ctx, rtx, tx)
		return err
	})
	return counts, err
}

// recopy replaces the rows of table that were open in PostgreSQL's copy
// (open, a condition on both sides) with SQLite's, and copies SQLite's rows
// whose key is past after.
func recopy(ctx context.Context, rtx *sql.Tx, tx pgx.Tx, table, key, open string, after int64) error {
	rows, err := tx.Query(ctx, `DELETE FROM `+table+` WHERE `+open+` RETURNING `+key)
	if err != nil {
		return err
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	list, _ := json.Marshal(keys)
	_, err = copyRows(ctx, rtx, tx, table, colsOf(table), key+` > ? OR `+key+` IN (SELECT value FROM json_each(?))`, []any{after, string(list)})
	return err
}

func colsOf(table string) string {
	for _, t := range copyTables {
		if t.name == table {
			return t.cols
		}
	}
	panic("no table " + table)
}
