package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/postgres/pgtest"
	"github.com/taskgov/taskgov/internal/testwait"
)

// TestCommitFailingAgainstAFrozenDatabaseReturns: a commit fails (the name
// rule refuses a task) and the database then stops answering without
// closing anything (its processes stopped, as on a paused host) before the
// ROLLBACK is sent. Commit returns an error within RollbackTimeout, where it
// used to wait on that ROLLBACK for ever and with it the engine's loop. A
// commit that fails before anything is sent sends no ROLLBACK and returns
// within the commit's own timeout (the pool's wait for a connection).
// Once the database answers again the store commits, and the refused task
// was not stored.
func TestCommitFailingAgainstAFrozenDatabaseReturns(t *testing.T) {
	pg := pgtest.Start(t) // its own cluster: freezing it stops no other test
	ctx := context.Background()
	st, err := postgres.Open(ctx, pg.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Unix(1700000000, 0)
	rec := func(name, team string, seq int64) model.TaskRecord {
		return model.TaskRecord{Name: name, Team: team, Seq: seq, State: model.StatePending, SubmittedAt: at,
			Spec: model.TaskSpec{Name: name, Team: team, Command: []string{"true"}}}
	}
	if err := st.Commit(ctx, func(tx *postgres.Tx) error { return tx.InsertTask(rec("held", "alpha", 1)) }); err != nil {
		t.Fatal(err)
	}
	thawed := false
	thaw := func() {
		if !thawed {
			thawed = true
			if err := pg.Thaw(); err != nil {
				t.Error(err)
			}
		}
	}
	defer thaw()

	// commit runs Commit(fn) and fails t if it does not return in time.
	commit := func(what string, fn func(*postgres.Tx) error) error {
		done := make(chan error, 1)
		started := time.Now()
		go func() { done <- st.Commit(ctx, fn) }()
		bound := testwait.Scale(postgres.RollbackTimeout + 20*time.Second)
		select {
		case err := <-done:
			t.Logf("%s: returned after %.1f s: %v", what, time.Since(started).Seconds(), err)
			return err
		case <-time.After(bound):
			thaw() // let the goroutine end
			t.Fatalf("%s: Commit still waits on the frozen database after %s", what, bound)
			return nil
		}
	}

	err = commit("a refused name, then the database freezes", func(tx *postgres.Tx) error {
		if err := tx.InsertTask(rec("held", "beta", 2)); err != nil {
			return err
		}
		err := tx.Flush() // the database refuses it; the transaction is now failed
		if ferr := pg.Freeze(); ferr != nil {
			t.Error(ferr)
		}
		return err
	})
	if err == nil {
		t.Fatal("a refused commit against a frozen database succeeded")
	}
	errEarly := errors.New("refused before anything was sent")
	if err := commit("a commit that fails before sending, database frozen", func(tx *postgres.Tx) error {
		return errEarly
	}); err == nil {
		t.Fatal("a commit that fails before sending succeeded")
	} // its own error, or the pool's timeout for a new connection (the first one was closed)

	thaw()
	testwait.For(t, 60*time.Second, 100*time.Millisecond, "a commit once the database answers again", func() bool {
		return st.Commit(ctx, func(tx *postgres.Tx) error { return tx.InsertTask(rec("after", "alpha", 3)) }) == nil
	})
	held, err := st.TasksNamed(ctx, "held")
	if err != nil || len(held) != 1 || held[0].Team != "alpha" {
		t.Fatalf("tasks named held after the thaw: %+v %v (want only alpha's)", held, err)
	}
	after, err := st.TasksNamed(ctx, "after")
	if err != nil || len(after) != 1 {
		t.Fatalf("tasks named after: %+v %v (want exactly one)", after, err)
	}
}
