package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestDurableAcrossReopen: committed tasks, events and tokens survive closing
// and reopening the database, and migrations run once.
func TestDurableAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	ctx := context.Background()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1700000000, 5).UTC()
	err = s.Commit(ctx, func(tx *Tx) error {
		for i, name := range []string{"a", "b", "c"} {
			r := model.TaskRecord{Name: name, Team: "t", Seq: int64(i + 1), State: model.StatePending, SubmittedAt: now,
				Spec: model.TaskSpec{Name: name, Team: "t", InstanceType: "ml.p5.48xlarge", Nodes: 2}}
			if err := tx.InsertTask(r); err != nil {
				return err
			}
			if err := tx.AddEvent(model.Event{Task: name, TaskSeq: int64(i + 1), Team: "t", At: now, Kind: "Submitted", Message: "queued"}); err != nil {
				return err
			}
		}
		r := model.TaskRecord{Name: "b", Team: "t", Seq: 2, State: model.StateSucceeded, SubmittedAt: now, FinishedAt: now,
			Spec: model.TaskSpec{Name: "b", Team: "t"}}
		if err := tx.UpdateTask(r); err != nil {
			return err
		}
		return tx.InsertToken(model.Token{ID: "tok-1", Role: model.RoleMember, Team: "t", CreatedAt: now}, "hash1")
	})
	if err != nil {
		t.Fatal(err)
	}
	// A failed transaction leaves nothing behind.
	_ = s.Commit(ctx, func(tx *Tx) error {
		_ = tx.InsertTask(model.TaskRecord{Name: "ghost", Team: "t", Seq: 9, State: model.StatePending})
		return tx.InsertTask(model.TaskRecord{Name: "a", Team: "t", Seq: 10, State: model.StatePending}) // duplicate name
	})
	s.Close()

	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	live, err := s.LiveTasks(ctx)
	if err != nil || len(live) != 2 || live[0].Name != "a" || live[1].Name != "c" || live[0].Spec.Nodes != 2 || !live[0].SubmittedAt.Equal(now) {
		t.Fatalf("live tasks after reopen: %+v %v", live, err)
	}
	if _, err := s.Task(ctx, "ghost"); err == nil {
		t.Fatal("a rolled-back insert survived")
	}
	evs, _ := s.Events(ctx, "c", 0, 10)
	if len(evs) != 1 || evs[0].Kind != "Submitted" {
		t.Fatalf("events: %+v", evs)
	}
	tok, err := s.TokenByHash(ctx, "hash1")
	if err != nil || tok.Team != "t" {
		t.Fatalf("token: %+v %v", tok, err)
	}
	page, _ := s.ListTasks(ctx, model.TaskFilter{Teams: []string{"t"}, States: []string{string(model.StatePending)}, AfterSeq: 1, Limit: 10})
	if len(page) != 1 || page[0].Name != "c" {
		t.Fatalf("filtered page: %+v", page)
	}
	if all, _ := s.ListTasks(ctx, model.TaskFilter{Since: now, Limit: 10}); len(all) != 3 {
		t.Fatalf("tasks submitted since %v: %+v", now, all)
	}
	if none, _ := s.ListTasks(ctx, model.TaskFilter{Since: now.Add(time.Nanosecond), Limit: 10}); len(none) != 0 {
		t.Fatalf("tasks submitted after every one of them: %+v", none)
	}
}

// TestPruneAudit deletes only entries older than the retention cut.
func TestPruneAudit(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	old, recent := time.Now().Add(-100*24*time.Hour), time.Now()
	_ = s.Commit(ctx, func(tx *Tx) error {
		_ = tx.Audit(model.AuditEntry{At: old, Actor: "x", Action: "a", Target: "t", Result: "ok"})
		_ = tx.AddEvent(model.Event{Task: "t", Team: "a", At: old, Kind: "Submitted", Message: "queued"})
		return tx.Audit(model.AuditEntry{At: recent, Actor: "x", Action: "b", Team: "a", Target: "t", Result: "ok"})
	})
	n, err := s.PruneAudit(ctx, time.Now().Add(-90*24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v", n, err)
	}
	left, _ := s.AuditLog(ctx, model.AuditFilter{})
	evs, _ := s.Events(ctx, "t", 0, 10)
	if len(left) != 1 || left[0].Action != "b" || len(evs) != 0 {
		t.Fatalf("left %+v, events %+v", left, evs)
	}
}

// TestPriorUseFollowsCommits: the in-memory name index answers as the
// database would, after inserts, updates, a failed commit and a reopen.
func TestPriorUseFollowsCommits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	ctx := context.Background()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	check := func(s *Store, want *model.PriorUse) {
		t.Helper()
		got, err := s.PriorUse(ctx, "x")
		if err != nil || (got == nil) != (want == nil) || (got != nil && *got != *want) {
			t.Fatalf("PriorUse(x) = %+v, %v; want %+v", got, err, want)
		}
	}
	check(s, nil)
	r := model.TaskRecord{Name: "x", Team: "t", Seq: 1, State: model.StatePending, Spec: model.TaskSpec{Name: "x", Team: "t"}}
	if err := s.Commit(ctx, func(tx *Tx) error { return tx.InsertTask(r) }); err != nil {
		t.Fatal(err)
	}
	check(s, &model.PriorUse{Team: "t", Live: true})
	r.State = model.StateSucceeded
	_ = s.Commit(ctx, func(tx *Tx) error { _ = tx.UpdateTask(r); return errors.New("rolled back") })
	check(s, &model.PriorUse{Team: "t", Live: true})
	if err := s.Commit(ctx, func(tx *Tx) error { return tx.UpdateTask(r) }); err != nil {
		t.Fatal(err)
	}
	check(s, &model.PriorUse{Team: "t", Live: false})
	s.Close()
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check(s, &model.PriorUse{Team: "t", Live: false})
}
