package postgres

// migrations are applied in order, each once, in its own transaction; append,
// never edit. They mirror the SQLite schema (internal/sqlite), with PostgreSQL
// types: times are Unix nanoseconds in BIGINT, ids are identity columns.
var migrations = []string{
	`CREATE TABLE cluster(id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL);
	CREATE TABLE tasks(
		name TEXT PRIMARY KEY,
		team TEXT NOT NULL,
		seq BIGINT NOT NULL UNIQUE,
		spec TEXT NOT NULL,
		state TEXT NOT NULL,
		submitted_at BIGINT NOT NULL,
		started_at BIGINT NOT NULL DEFAULT 0,
		finished_at BIGINT NOT NULL DEFAULT 0,
		checkpoint_at BIGINT NOT NULL DEFAULT 0,
		resumes INTEGER NOT NULL DEFAULT 0,
		retries INTEGER NOT NULL DEFAULT 0,
		placement TEXT NOT NULL DEFAULT '',
		pgids TEXT NOT NULL DEFAULT '',
		message TEXT NOT NULL DEFAULT '');
	CREATE INDEX tasks_team_seq ON tasks(team, seq);
	CREATE INDEX tasks_state_seq ON tasks(state, seq);
	CREATE TABLE events(
		id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		task TEXT NOT NULL,
		team TEXT NOT NULL,
		at BIGINT NOT NULL,
		kind TEXT NOT NULL,
		message TEXT NOT NULL);
	CREATE INDEX events_task ON events(task, id);
	CREATE INDEX events_at ON events(at);
	CREATE TABLE tokens(
		id TEXT PRIMARY KEY,
		hash TEXT NOT NULL UNIQUE,
		role TEXT NOT NULL,
		team TEXT NOT NULL DEFAULT '',
		note TEXT NOT NULL DEFAULT '',
		created_at BIGINT NOT NULL,
		revoked_at BIGINT NOT NULL DEFAULT 0);
	CREATE TABLE audit(
		id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		at BIGINT NOT NULL,
		actor TEXT NOT NULL,
		action TEXT NOT NULL,
		team TEXT NOT NULL DEFAULT '',
		target TEXT NOT NULL,
		result TEXT NOT NULL);
	CREATE INDEX audit_at ON audit(at);
	CREATE TABLE runs(
		id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		task TEXT NOT NULL,
		team TEXT NOT NULL,
		instance_type TEXT NOT NULL,
		priority TEXT NOT NULL DEFAULT '',
		gpus BIGINT NOT NULL,
		vcpu DOUBLE PRECISION NOT NULL,
		borrowed_gpus BIGINT NOT NULL,
		started_at BIGINT NOT NULL,
		ended_at BIGINT NOT NULL DEFAULT 0,
		outcome TEXT NOT NULL DEFAULT '');
	CREATE INDEX runs_open ON runs(task, ended_at);
	CREATE INDEX runs_time ON runs(started_at, ended_at);
	CREATE TABLE sessions(
		id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		started_at BIGINT NOT NULL,
		stopped_at BIGINT NOT NULL DEFAULT 0);
	CREATE TABLE samples(
		resolution BIGINT NOT NULL,
		at BIGINT NOT NULL,
		instance_type TEXT NOT NULL,
		gpus DOUBLE PRECISION NOT NULL, gpus_used DOUBLE PRECISION NOT NULL,
		vcpu DOUBLE PRECISION NOT NULL, vcpu_used DOUBLE PRECISION NOT NULL,
		mem_gib DOUBLE PRECISION NOT NULL, mem_used_gib DOUBLE PRECISION NOT NULL,
		PRIMARY KEY (resolution, at, instance_type));
	-- The leader lease (lease.go) and the fence every leader's commit checks.
	-- They are two rows so that renewing the lease never waits for a commit.
	CREATE TABLE leader_lease(
		id INTEGER PRIMARY KEY CHECK (id = 1),
		holder TEXT NOT NULL,
		term BIGINT NOT NULL,
		expires_at TIMESTAMPTZ NOT NULL);
	INSERT INTO leader_lease VALUES (1, '', 0, 'epoch');
	CREATE TABLE leader_term(id INTEGER PRIMARY KEY CHECK (id = 1), term BIGINT NOT NULL);
	INSERT INTO leader_term VALUES (1, 0);`,
	// 2: as SQLite's migrations 5 and 6: a finished task's name may be reused
	// by its team (model.CheckNameReuse), events say which task of a name
	// they belong to, and a heartbeat row proves that writes work.
	`ALTER TABLE tasks DROP CONSTRAINT tasks_pkey;
	ALTER TABLE tasks ADD PRIMARY KEY (seq);
	CREATE INDEX tasks_name ON tasks(name, seq);
	CREATE UNIQUE INDEX tasks_live_name ON tasks(name) WHERE state NOT IN ('Succeeded', 'Failed', 'Cancelled');
	ALTER TABLE events ADD COLUMN task_seq BIGINT NOT NULL DEFAULT 0;
	UPDATE events SET task_seq = COALESCE((SELECT seq FROM tasks WHERE tasks.name = events.task), 0);
	CREATE INDEX events_task_seq ON events(task_seq, id);
	CREATE TABLE heartbeat(id INTEGER PRIMARY KEY CHECK (id = 1), at BIGINT NOT NULL);`,
	// 3: commits raise an error in the database when a check fails (the
	// leader's term, the name rule), so that the COMMIT sent behind them in
	// the same round trip never commits.
	`CREATE FUNCTION taskgov_refuse(msg text, detail text) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
	BEGIN
		RAISE EXCEPTION USING MESSAGE = msg, DETAIL = detail;
	END $$;`,
	// 4: a move from SQLite (migrate.go). While the server on SQLite still
	// ran, the copy is of a snapshot, and the row keeps where it ended, so
	// that FinishSQLiteImport copies what came after; until then, servers
	// refuse the database.
	`CREATE TABLE sqlite_import(
		id INTEGER PRIMARY KEY CHECK (id = 1),
		finished BOOLEAN NOT NULL,
		holder INTEGER NOT NULL,
		max_seq BIGINT NOT NULL,
		seq_name TEXT NOT NULL,
		events_id BIGINT NOT NULL,
		audit_id BIGINT NOT NULL,
		runs_id BIGINT NOT NULL,
		sessions_id BIGINT NOT NULL);`,
	// 5: as SQLite's migration 7: the dashboard's task pages come from
	// indexes (sqlrow.TaskPageQuery).
	`ALTER TABLE tasks ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
	UPDATE tasks SET deleted = 1 WHERE (spec::jsonb ->> 'deletedAt') IS NOT NULL;
	CREATE INDEX tasks_deleted ON tasks(seq) WHERE deleted = 1;
	CREATE INDEX tasks_team_state_seq ON tasks(team, state, seq);`,
	// 6: as SQLite's migration 8: the preemptions the scheduler made.
	`CREATE TABLE preemptions(
		id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		at BIGINT NOT NULL,
		task TEXT NOT NULL,
		team TEXT NOT NULL,
		reason TEXT NOT NULL,
		preemptor TEXT NOT NULL DEFAULT '',
		preemptor_team TEXT NOT NULL DEFAULT '',
		gpus BIGINT NOT NULL,
		work_gpu_seconds DOUBLE PRECISION NOT NULL,
		restart_gpu_seconds DOUBLE PRECISION NOT NULL);
	CREATE INDEX preemptions_team ON preemptions(team, id);
	CREATE INDEX preemptions_preemptor_team ON preemptions(preemptor_team, id);
	CREATE INDEX preemptions_at ON preemptions(at);`,
	// 7: text the task list sorts by compares bytewise, as SQLite's does,
	// whatever the database's locale (its indexes are rebuilt in that order).
	`ALTER TABLE tasks ALTER COLUMN name TYPE TEXT COLLATE "C",
		ALTER COLUMN team TYPE TEXT COLLATE "C",
		ALTER COLUMN state TYPE TEXT COLLATE "C";`,
}
