package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"

	"github.com/taskgov/taskgov/internal/model"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// Store is the database. Writes go through Commit, one transaction per call,
// from one goroutine at a time (the engine's applier); reads may run
// concurrently from any goroutine.
type Store struct {
	w     *sql.DB // the single writer connection
	r     *sql.DB // readers (WAL lets them run beside the writer)
	path  string
	id    fileID                      // the database file as opened; see checkFile
	f     *os.File                    // the same file, read-only, for the header check
	fatal atomic.Pointer[model.Fault] // corruption a read found
	names model.NameIndex             // the newest task of every name (names.go)
	// afterPageRead, if set (tests only), runs in TaskPage between the page
	// and its counts.
	afterPageRead func()
}

// Open opens (creating if needed) the database at path and migrates it.
func Open(path string) (*Store, error) {
	dsn := "file:" + url.PathEscape(path) + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)" +
		"&_pragma=busy_timeout(10000)&_pragma=foreign_keys(ON)"
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	r, err := sql.Open("sqlite", dsn+"&_pragma=query_only(true)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	s := &Store{w: w, r: r, path: path}
	if err := s.migrate(); err != nil {
		s.Close()
		return nil, openError(path, err)
	}
	if s.id, err = statID(path); err != nil {
		s.Close()
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	if s.f, err = os.Open(path); err != nil {
		s.Close()
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error {
	if s.f != nil {
		s.f.Close()
	}
	return errors.Join(s.r.Close(), s.w.Close())
}

// migrations are applied in order, each once; append, never edit.
var migrations = []string{
	`CREATE TABLE cluster(id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL);
	CREATE TABLE tasks(
		name TEXT PRIMARY KEY,
		team TEXT NOT NULL,
		seq INTEGER NOT NULL UNIQUE,
		spec TEXT NOT NULL,
		state TEXT NOT NULL,
		submitted_at INTEGER NOT NULL,
		started_at INTEGER NOT NULL DEFAULT 0,
		finished_at INTEGER NOT NULL DEFAULT 0,
		checkpoint_at INTEGER NOT NULL DEFAULT 0,
		resumes INTEGER NOT NULL DEFAULT 0,
		retries INTEGER NOT NULL DEFAULT 0,
		placement TEXT NOT NULL DEFAULT '',
		pgids TEXT NOT NULL DEFAULT '',
		message TEXT NOT NULL DEFAULT '');
	CREATE INDEX tasks_team_seq ON tasks(team, seq);
	CREATE INDEX tasks_state_seq ON tasks(state, seq);
	CREATE TABLE events(
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		task TEXT NOT NULL,
		team TEXT NOT NULL,
		at INTEGER NOT NULL,
		kind TEXT NOT NULL,
		message TEXT NOT NULL);
	CREATE INDEX events_task ON events(task, id);
	CREATE TABLE tokens(
		id TEXT PRIMARY KEY,
		hash TEXT NOT NULL UNIQUE,
		role TEXT NOT NULL,
		team TEXT NOT NULL DEFAULT '',
		note TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL,
		revoked_at INTEGER NOT NULL DEFAULT 0);
	CREATE TABLE audit(
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		at INTEGER NOT NULL,
		actor TEXT NOT NULL,
		action TEXT NOT NULL,
		target TEXT NOT NULL,
		result TEXT NOT NULL);`,
	// 2: run history for usage reports, and server sessions for their gaps.
	`CREATE TABLE runs(
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		task TEXT NOT NULL,
		team TEXT NOT NULL,
		instance_type TEXT NOT NULL,
		priority TEXT NOT NULL DEFAULT '',
		gpus INTEGER NOT NULL,
		vcpu REAL NOT NULL,
		borrowed_gpus INTEGER NOT NULL,
		started_at INTEGER NOT NULL,
		ended_at INTEGER NOT NULL DEFAULT 0,
		outcome TEXT NOT NULL DEFAULT '');
	CREATE INDEX runs_open ON runs(task, ended_at);
	CREATE INDEX runs_time ON runs(started_at, ended_at);
	CREATE TABLE sessions(
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		started_at INTEGER NOT NULL,
		stopped_at INTEGER NOT NULL DEFAULT 0);`,
	// 3: audit entries carry the team they concern, for search.
	`ALTER TABLE audit ADD COLUMN team TEXT NOT NULL DEFAULT '';
	CREATE INDEX audit_at ON audit(at);`,
	// 4: utilisation samples per instance type, at two resolutions.
	`CREATE TABLE samples(
		resolution INTEGER NOT NULL,
		at INTEGER NOT NULL,
		instance_type TEXT NOT NULL,
		gpus REAL NOT NULL, gpus_used REAL NOT NULL,
		vcpu REAL NOT NULL, vcpu_used REAL NOT NULL,
		mem_gib REAL NOT NULL, mem_used_gib REAL NOT NULL,
		PRIMARY KEY (resolution, at, instance_type));`,
	// 5: a finished task's name may be reused by its team (model.CheckNameReuse):
	// tasks are keyed by seq, one live task per name, and events say which
	// task of a name they belong to.
	`CREATE TABLE tasks5(
		seq INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		team TEXT NOT NULL,
		spec TEXT NOT NULL,
		state TEXT NOT NULL,
		submitted_at INTEGER NOT NULL,
		started_at INTEGER NOT NULL DEFAULT 0,
		finished_at INTEGER NOT NULL DEFAULT 0,
		checkpoint_at INTEGER NOT NULL DEFAULT 0,
		resumes INTEGER NOT NULL DEFAULT 0,
		retries INTEGER NOT NULL DEFAULT 0,
		placement TEXT NOT NULL DEFAULT '',
		pgids TEXT NOT NULL DEFAULT '',
		message TEXT NOT NULL DEFAULT '');
	INSERT INTO tasks5(seq, name, team, spec, state, submitted_at, started_at, finished_at, checkpoint_at, resumes, retries, placement, pgids, message)
		SELECT seq, name, team, spec, state, submitted_at, started_at, finished_at, checkpoint_at, resumes, retries, placement, pgids, message FROM tasks;
	DROP TABLE tasks;
	ALTER TABLE tasks5 RENAME TO tasks;
	CREATE INDEX tasks_name ON tasks(name, seq);
	CREATE UNIQUE INDEX tasks_live_name ON tasks(name) WHERE state NOT IN ('Succeeded', 'Failed', 'Cancelled');
	CREATE INDEX tasks_team_seq ON tasks(team, seq);
	CREATE INDEX tasks_state_seq ON tasks(state, seq);
	ALTER TABLE events ADD COLUMN task_seq INTEGER NOT NULL DEFAULT 0;
	UPDATE events SET task_seq = COALESCE((SELECT seq FROM tasks WHERE tasks.name = events.task), 0);
	CREATE INDEX events_task_seq ON events(task_seq, id);`,
	// 6: one row the engine rewrites to learn whether writes succeed again
	// after a storage fault.
	`CREATE TABLE heartbeat(id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL);`,
	// 7: the dashboard's task pages come from indexes (sqlrow.TaskPageQuery):
	// a deleted task is marked in a column (its time stays in spec), and a
	// team's tasks in one state are in submission order.
	`ALTER TABLE tasks ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
	UPDATE tasks SET deleted = 1 WHERE json_extract(spec, '$.deletedAt') IS NOT NULL;
	CREATE INDEX tasks_deleted ON tasks(seq) WHERE deleted = 1;
	CREATE INDEX tasks_team_state_seq ON tasks(team, state, seq);`,
	// 8: the preemptions the scheduler made, for the list of recent ones
	// (model.PreemptionRecord), by either team.
	`CREATE TABLE preemptions(
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		at INTEGER NOT NULL,
		task TEXT NOT NULL,
		team TEXT NOT NULL,
		reason TEXT NOT NULL,
		preemptor TEXT NOT NULL DEFAULT '',
		preemptor_team TEXT NOT NULL DEFAULT '',
		gpus INTEGER NOT NULL,
		work_gpu_seconds REAL NOT NULL,
		restart_gpu_seconds REAL NOT NULL);
	CREATE INDEX preemptions_team ON preemptions(team, id);
	CREATE INDEX preemptions_preemptor_team ON preemptions(preemptor_team, id);
	CREATE INDEX preemptions_at ON preemptions(at);`,
}

func (s *Store) migrate() error {
	if _, err := s.w.Exec(`CREATE TABLE IF NOT EXISTS schema_version(version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	var v int
	if err := s.w.QueryRow(`SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v); err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	if v > len(migrations) {
		return fmt.Errorf("the database has schema version %d, newer than this taskgov (%d); use a newer taskgov", v, len(migrations))
	}
	for ; v < len(migrations); v++ {
		err := s.Commit(context.Background(), func(tx *Tx) error {
			if _, err := tx.tx.Exec(migrations[v]); err != nil {
				return err
			}
			_, err := tx.tx.Exec(`INSERT INTO schema_version(version) VALUES (?)`, v+1)
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
	}
	return nil
}

// Tx is one write transaction.
type Tx struct {
	tx    *sql.Tx
	s     *Store
	tasks []model.NameRow // task inserts and updates, for the name index once committed
}

// Commit runs fn in one transaction and commits it durably (WAL with
// synchronous=FULL: the commit is fsynced before Commit returns). Callers
// batch many writes into one Commit to share the fsync: group commit. After
// the commit it checks that the database file is still the one opened
// (ErrFileGone otherwise): a write to a removed file must not be
// acknowledged.
func (s *Store) Commit(ctx context.Context, fn func(*Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	t := &Tx{tx: tx, s: s}
	if err := fn(t); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		s.names.Invalidate() // the outcome is unknown: reload on next use
		return fmt.Errorf("commit: %w", err)
	}
	s.names.Committed(t.tasks)
	if s.id != (fileID{}) {
		return s.checkFile()
	}
	return nil
}
