package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/postgres/pgtest"
)

// TestPGLeasePartition: the leader is cut off from PostgreSQL while the
// standby still reaches it. The leader stops leading before the standby can
// take over (within 2/3 of the lease), the standby takes over within about
// the lease, and once the partition heals the old leader's late commit is
// refused by the database.
func TestPGLeasePartition(t *testing.T) {
	pg := pgtest.Start(t)
	dsn := pg.NewDatabase(t)
	proxy := startProxy(t, fmt.Sprintf("127.0.0.1:%d", pg.Port))
	ctx := context.Background()
	viaProxy := strings.Replace(dsn, fmt.Sprintf(":%d/", pg.Port), ":"+strings.Split(proxy.addr, ":")[1]+"/", 1)
	a, err := postgres.Open(ctx, viaProxy)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	const ttl = 1500 * time.Millisecond
	ea, eb := newPGElector(a, "http://a", ttl, log), newPGElector(b, "http://b", ttl, log)
	leadA, err := ea.waitLeading(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tookB := make(chan time.Time, 1)
	go func() {
		if _, err := eb.waitLeading(ctx); err == nil {
			tookB <- time.Now()
		}
	}()
	time.Sleep(ttl) // a renews through it
	if !ea.leading() || eb.leading() {
		t.Fatalf("before the partition: a leads %v, b leads %v", ea.leading(), eb.leading())
	}
	eb.mu.Lock()
	following := eb.leader
	eb.mu.Unlock()
	if following != "http://a" {
		t.Fatalf("the standby follows %q", following)
	}
	insert := func(name string, seq int64) func(*postgres.Tx) error {
		return func(tx *postgres.Tx) error {
			return tx.InsertTask(model.TaskRecord{Name: name, Team: "t", Seq: seq, State: model.StatePending, SubmittedAt: time.Now()})
		}
	}
	if err := a.Commit(ctx, insert("before", 1)); err != nil {
		t.Fatal(err)
	}

	cutAt := time.Now()
	proxy.cut()
	<-leadA.Done()
	lostAt := time.Now()
	if ea.leading() || !errors.Is(context.Cause(leadA), errLeaseLost) {
		t.Fatalf("a after its lead ended: leading %v, cause %v", ea.leading(), context.Cause(leadA))
	}
	took := <-tookB
	t.Logf("partition: a stopped leading %.2f s after the cut, b led %.2f s after it (lease %s)",
		lostAt.Sub(cutAt).Seconds(), took.Sub(cutAt).Seconds(), ttl)
	if !lostAt.Before(took) {
		t.Fatal("b took over before a stopped leading")
	}
	if lostAt.Sub(cutAt) > ttl*2/3+200*time.Millisecond {
		t.Fatalf("a went on leading %s after the cut", lostAt.Sub(cutAt))
	}
	if took.Sub(cutAt) > ttl+time.Second {
		t.Fatalf("b took %s to take over", took.Sub(cutAt))
	}
	if err := b.Commit(ctx, insert("after", 2)); err != nil {
		t.Fatalf("the new leader's commit: %v", err)
	}

	proxy.heal()
	err = a.Commit(ctx, insert("late", 3))
	if !errors.Is(err, postgres.ErrFenced) {
		t.Fatalf("the old leader's late commit: %v, want ErrFenced", err)
	}
	if _, err := b.Task(ctx, "late"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("the late commit was written: %v", err)
	}
}
