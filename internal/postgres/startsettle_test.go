package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/postgres/pgtest"
	"github.com/taskgov/taskgov/internal/testwait"
)

// syncBuffer is a log a test reads while the store writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// stuckCommit is an earlier server's commit that cannot finish: its store
// stored task seq 1, then sent the commit of "late" (seq 2), whose insert
// waits on the test's uncommitted row of seq 2; its connections are then
// cut (the process is gone: no cancel request, no ROLLBACK), and the
// backend waits on. release rolls the test's row back: the insert goes on, and the
// COMMIT the backend received lands then.
func stuckCommit(t *testing.T) (dsn string, release func()) {
	t.Helper()
	if server == nil {
		t.Skip(pgtest.HowTo)
	}
	ctx := context.Background()
	dsn = server.NewDatabase(t)
	px := newCutProxy(t, server.Port)
	earlier, err := postgres.Open(ctx, strings.Replace(dsn, fmt.Sprintf(":%d/", server.Port), fmt.Sprintf(":%d/", px.port), 1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { earlier.Close() })
	rec := func(name string, seq int64) model.TaskRecord {
		return model.TaskRecord{Name: name, Team: "alpha", Seq: seq, State: model.StatePending, SubmittedAt: time.Unix(1700000000, 0),
			Spec: model.TaskSpec{Name: name, Team: "alpha", Command: []string{"true"}}}
	}
	if err := earlier.Commit(ctx, func(tx *postgres.Tx) error { return tx.InsertTask(rec("first", 1)) }); err != nil {
		t.Fatal(err)
	}
	locker, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	lockTx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := holdSeq(ctx, lockTx, 2); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if !released {
			released = true
			if err := lockTx.Rollback(ctx); err != nil {
				t.Error(err)
			}
			locker.Close(ctx)
		}
	}
	t.Cleanup(release)
	done := make(chan error, 1)
	go func() {
		done <- earlier.Commit(ctx, func(tx *postgres.Tx) error { return tx.InsertTask(rec("late", 2)) })
	}()
	testwait.For(t, 30*time.Second, 10*time.Millisecond, "the earlier commit to wait on the test's row", func() bool {
		var waiting bool
		err := locker.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
			AND application_name = 'taskgov' AND wait_event_type = 'Lock')`).Scan(&waiting)
		return err == nil && waiting
	})
	px.cut() // the earlier process is gone: no cancel request, no ROLLBACK
	if err := <-done; err == nil {
		t.Fatal("the commit behind the test's row succeeded")
	}
	return dsn, release
}

// cutProxy forwards TCP connections to PostgreSQL until cut, which closes
// them all and takes no more (so no cancel request gets through either).
type cutProxy struct {
	port  int
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCutProxy(t *testing.T, to int) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{port: ln.Addr().(*net.TCPAddr).Port, ln: ln}
	t.Cleanup(p.cut)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", to))
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

func (p *cutProxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// holdSeq inserts, in tx and uncommitted, a copy of task seq 1 with seq
// seq: a commit of a task with that seq waits for tx to end (the unique
// index), after its statements were prepared and its whole batch sent.
func holdSeq(ctx context.Context, tx pgx.Tx, seq int64) error {
	for _, q := range []string{`CREATE TEMP TABLE held ON COMMIT DROP AS SELECT * FROM tasks WHERE seq = 1`,
		`UPDATE held SET seq = $1, name = 'held-by-test'`, `INSERT INTO tasks SELECT * FROM held`} {
		args := []any{}
		if strings.Contains(q, "$1") {
			args = append(args, seq)
		}
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// TestFirstReadWaitsForAnEarlierServersCommit: a store opened while an
// earlier process's commit is stuck in the database (its connection cut
// after COMMIT was sent) does not read its state until that transaction
// has ended, says so in its log, and then sees the task; before, it read
// at once, missed the task, and the next submission took its sequence
// number again. The in-memory fence (unsettled.go) died with the earlier
// process.
func TestFirstReadWaitsForAnEarlierServersCommit(t *testing.T) {
	dsn, release := stuckCommit(t)
	ctx := context.Background()
	st, log := openLogged(t, dsn)
	type result struct {
		seq int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := st.MaxSeq(ctx)
		done <- result{n, err}
	}()
	testwait.For(t, 30*time.Second, 10*time.Millisecond, "the store to say it waits", func() bool {
		select {
		case r := <-done:
			t.Fatalf("the first read returned %d %v while the earlier commit was stuck; log:\n%s", r.seq, r.err, log.String())
		default:
		}
		return strings.Contains(log.String(), "waiting for other sessions' open transactions")
	})
	if !strings.Contains(log.String(), "taskgov active waiting on Lock") {
		t.Errorf("the log does not name the stuck backend: %s", log.String())
	}
	release()
	select {
	case r := <-done:
		if r.err != nil || r.seq != 2 {
			t.Fatalf("the first read once the commit landed: %d %v; want 2", r.seq, r.err)
		}
	case <-time.After(testwait.Scale(30 * time.Second)):
		t.Fatalf("the first read still waits after the commit landed; log:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "other sessions' transactions ended") {
		t.Errorf("the log does not say the wait ended: %s", log.String())
	}
}

// TestFirstReadWaitIsBounded: past the bound the store logs an error that
// names the backend and how to end it, and reads (the server serves); the
// commit that lands later then refuses the same sequence number once, and
// a reread sees it, the self-healing path this wait narrows.
func TestFirstReadWaitIsBounded(t *testing.T) {
	dsn, release := stuckCommit(t)
	ctx := context.Background()
	st, log := openLogged(t, dsn)
	st.SetStartSettle(500 * time.Millisecond)
	began := time.Now()
	n, err := st.MaxSeq(ctx)
	if err != nil || n != 1 {
		t.Fatalf("the first read past the bound: %d %v; want 1 (the stuck commit has not landed)", n, err)
	}
	if took := time.Since(began); took < 500*time.Millisecond {
		t.Errorf("the first read returned after %s, before the bound", took)
	}
	for _, want := range []string{"level=ERROR", "still open; reading the store anyway", "pid ", "pg_terminate_backend(pid)"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q: %s", want, log.String())
		}
	}
	release()
	testwait.For(t, 30*time.Second, 20*time.Millisecond, "the late commit to land", func() bool {
		n, err := st.MaxSeq(ctx)
		return err == nil && n == 2
	})
}

// TestFirstReadDoesNotWaitForReaders: another session of the role that
// holds a transaction open without writing (a psql session reading) is
// not waited for.
func TestFirstReadDoesNotWaitForReaders(t *testing.T) {
	if server == nil {
		t.Skip(pgtest.HowTo)
	}
	ctx := context.Background()
	dsn := server.NewDatabase(t)
	st, log := openLogged(t, dsn)
	reader, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close(ctx)
	tx, err := reader.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT count(*) FROM tasks`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.MaxSeq(ctx); err != nil {
		t.Fatal(err)
	}
	if log.String() != "" {
		t.Errorf("the store waited for a reader: %s", log.String())
	}
}

// openLogged opens the store at dsn, closed when the test ends, with its
// log kept in a buffer the test reads.
func openLogged(t *testing.T, dsn string) (*postgres.Store, *syncBuffer) {
	t.Helper()
	st, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := &syncBuffer{}
	st.SetLog(slog.New(slog.NewTextHandler(log, nil)))
	return st, log
}
