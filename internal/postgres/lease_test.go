package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/postgres/pgtest"
)

func insert(name string, seq int64) func(*postgres.Tx) error {
	return func(tx *postgres.Tx) error {
		return tx.InsertTask(model.TaskRecord{Name: name, Team: "t", Seq: seq, State: model.StatePending, SubmittedAt: time.Now()})
	}
}

// TestFencing: one replica holds the lease; another cannot take it until it
// expires; after the takeover the deposed replica's commits are refused by
// the database and write nothing, and its renewals fail.
func TestFencing(t *testing.T) {
	open := fresh(t)
	a, b := open(), open()
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	const ttl = time.Second
	ta, ok, err := a.Acquire(ctx, "http://a", ttl)
	if err != nil || !ok || ta != 1 {
		t.Fatalf("a takes the lease: term %d %v %v", ta, ok, err)
	}
	a.Fence(ta)
	must(t, a.Commit(ctx, insert("first", 1)))
	if _, ok, err := b.Acquire(ctx, "http://b", ttl); err != nil || ok {
		t.Fatalf("b took a valid lease: %v %v", ok, err)
	}
	if l, err := b.Lease(ctx); err != nil || l.Holder != "http://a" || l.Term != 1 || !l.Valid {
		t.Fatalf("lease as b sees it: %+v %v", l, err)
	}
	renewed := time.Now()
	if ok, err := a.Renew(ctx, ta, ttl); err != nil || !ok {
		t.Fatalf("a renews: %v %v", ok, err)
	}
	var tb int64
	for {
		if tb, ok, err = b.Acquire(ctx, "http://b", ttl); err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if waited := time.Since(renewed); waited < ttl-50*time.Millisecond || tb != 2 {
		t.Fatalf("b took the lease %s after a's renewal (ttl %s), term %d", waited, ttl, tb)
	}
	b.Fence(tb)
	err = a.Commit(ctx, insert("late", 2))
	if !errors.Is(err, postgres.ErrFenced) {
		t.Fatalf("the deposed leader's commit: %v, want ErrFenced", err)
	}
	if _, err := b.Task(ctx, "late"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("the refused commit wrote its task: %v", err)
	}
	if ok, err := a.Renew(ctx, ta, ttl); err != nil || ok {
		t.Fatalf("the deposed leader renewed: %v %v", ok, err)
	}
	must(t, b.Commit(ctx, insert("second", 2)))
	// A clean stop hands the lease over at once.
	must(t, b.Release(ctx, tb))
	if tc, ok, err := a.Acquire(ctx, "http://a", ttl); err != nil || !ok || tc != 3 {
		t.Fatalf("a takes the released lease: %d %v %v", tc, ok, err)
	}
}

// TestTakeoverWaitsForCommitInFlight: a commit that passed the term check
// finishes before a takeover completes, so no commit of the old term lands
// after the new term began.
func TestTakeoverWaitsForCommitInFlight(t *testing.T) {
	open := fresh(t)
	a, b := open(), open()
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	ta, _, err := a.Acquire(ctx, "http://a", 200*time.Millisecond)
	must(t, err)
	a.Fence(ta)
	checked, release := make(chan struct{}), make(chan struct{})
	committed := make(chan error, 1)
	go func() {
		committed <- a.Commit(ctx, func(tx *postgres.Tx) error {
			if err := insert("inflight", 1)(tx); err != nil {
				return err
			}
			// A read sends the queued writes and the term check now.
			if _, err := tx.CloseOpenRuns(time.Now(), "x", nil); err != nil {
				return err
			}
			close(checked)
			<-release
			return nil
		})
	}()
	<-checked
	time.Sleep(300 * time.Millisecond) // the lease has expired
	took := make(chan time.Time, 1)
	go func() {
		tb, ok, err := b.Acquire(ctx, "http://b", time.Second)
		if err != nil || !ok || tb != 2 {
			t.Errorf("b's takeover: %d %v %v", tb, ok, err)
		}
		took <- time.Now()
	}()
	time.Sleep(300 * time.Millisecond)
	select {
	case <-took:
		t.Fatal("the takeover completed while a commit of the old term was in flight")
	default:
	}
	finished := time.Now()
	close(release)
	must(t, <-committed)
	if at := <-took; at.Before(finished) {
		t.Fatal("the takeover completed before the old term's commit")
	}
	if _, err := b.Task(ctx, "inflight"); err != nil {
		t.Fatalf("the commit that passed its check: %v", err)
	}
}

// TestSynchronousCommitForcedOn: taskgov's sessions wait for the flush even
// where the database's default is synchronous_commit=off.
func TestSynchronousCommitForcedOn(t *testing.T) {
	if server == nil {
		t.Skip(pgtest.HowTo)
	}
	dsn := server.NewDatabase(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	must(t, err)
	_, err = c.Exec(ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET synchronous_commit = off', current_database()); END $$`)
	c.Close(ctx)
	must(t, err)
	s, err := postgres.Open(ctx, dsn)
	must(t, err)
	defer s.Close()
	if v, err := s.Show(ctx, "synchronous_commit"); err != nil || v != "on" {
		t.Fatalf("synchronous_commit in taskgov's session: %q %v", v, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
