package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/postgres/pgtest"
	"github.com/taskgov/taskgov/internal/sqlite"
)

// TestImportSQLiteLive moves an installation whose server still runs: the
// snapshot is copied and marked unfinished, servers refuse the database,
// finishing is refused while the server holds the file; the server goes on
// writing (new tasks, a live task finishing, a run ending, a session
// stopping, a token revoked, old audit entries pruned, samples); once it
// has stopped, finishing copies all of it, the counts match, and the
// database opens. A finish against another SQLite file is refused.
func TestImportSQLiteLive(t *testing.T) {
	if server == nil {
		t.Skip(pgtest.HowTo)
	}
	dsn := server.NewDatabase(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "taskgov.db")
	src, err := sqlite.Open(path)
	must(t, err)
	defer src.Close()
	t0 := time.Unix(1700000000, 0).UTC()
	submit := func(from, to int, at time.Time) {
		must(t, src.Commit(ctx, func(tx *sqlite.Tx) error {
			for i := from; i <= to; i++ {
				name := fmt.Sprint("job", i)
				must(t, tx.InsertTask(model.TaskRecord{Name: name, Team: "t", Seq: int64(i), State: model.StatePending, SubmittedAt: at,
					Spec: model.TaskSpec{Name: name, Team: "t", Nodes: 1}}))
				must(t, tx.AddEvent(model.Event{Task: name, TaskSeq: int64(i), Team: "t", At: at, Kind: "Submitted", Message: "queued"}))
				must(t, tx.Audit(model.AuditEntry{At: at, Actor: "u", Action: "task.submit", Team: "t", Target: name, Result: "ok"}))
			}
			return nil
		}))
	}
	must(t, src.Commit(ctx, func(tx *sqlite.Tx) error {
		must(t, tx.PutCluster(model.Cluster{Teams: []model.Team{{Name: "t"}}}))
		must(t, tx.StartRun(model.Run{Task: "job1", Team: "t", InstanceType: "p5", GPUs: 8, StartedAt: t0}))
		return tx.InsertToken(model.Token{ID: "tok", Role: model.RoleAdmin, CreatedAt: t0}, "hash1")
	}))
	submit(1, 100, t0)
	session, err := src.StartSession(ctx, t0)
	must(t, err)

	holder := 4242 // the server, as another process would show
	defer postgres.FakeSQLiteHolder(&holder)()
	dst, err := postgres.OpenForImport(ctx, dsn)
	must(t, err)
	defer dst.Close()
	res, err := dst.ImportSQLite(ctx, path)
	must(t, err)
	if res.Holder != 4242 || res.Counts["tasks"] != 100 || res.Counts["events"] != 100 {
		t.Fatalf("the live import: %+v", res)
	}
	if s, err := postgres.Open(ctx, dsn); !errors.Is(err, postgres.ErrImportUnfinished) || !strings.Contains(err.Error(), "--finish") {
		if s != nil {
			s.Close()
		}
		t.Fatalf("a server opened the unfinished import: %v", err)
	}
	if _, err := dst.FinishSQLiteImport(ctx, path); err == nil || !strings.Contains(err.Error(), "pid 4242") {
		t.Fatalf("finishing while the server runs: %v", err)
	}

	// The server goes on after the snapshot.
	t1 := t0.Add(time.Hour)
	submit(101, 130, t1)
	must(t, src.Commit(ctx, func(tx *sqlite.Tx) error {
		r, err := src.Task(ctx, "job1")
		must(t, err)
		r.State, r.FinishedAt = model.StateSucceeded, t1
		must(t, tx.UpdateTask(r))
		must(t, tx.EndRun("job1", t1, "succeeded"))
		_, err = tx.RevokeToken("tok", t1)
		return err
	}))
	must(t, src.StopSession(ctx, session, t1))
	if _, err := src.PruneAudit(ctx, t0.Add(time.Minute)); err != nil { // the first 100 audit entries and events
		t.Fatal(err)
	}
	must(t, src.AddSamples(ctx, time.Minute, []model.Sample{{At: t1, InstanceType: "p5", GPUs: 16, GPUsUsed: 8}}))

	other := filepath.Join(t.TempDir(), "other.db")
	o, err := sqlite.Open(other)
	must(t, err)
	must(t, o.Commit(ctx, func(tx *sqlite.Tx) error {
		return tx.InsertTask(model.TaskRecord{Name: "else", Team: "t", Seq: 100, State: model.StatePending, SubmittedAt: t0,
			Spec: model.TaskSpec{Name: "else", Team: "t", Nodes: 1}})
	}))
	o.Close()
	holder = 0 // the server has stopped
	if _, err := dst.FinishSQLiteImport(ctx, other); err == nil || !strings.Contains(err.Error(), "not the database") {
		t.Fatalf("finishing from another file: %v", err)
	}
	counts, err := dst.FinishSQLiteImport(ctx, path)
	must(t, err)
	if counts["tasks"] != 130 || counts["events"] != 30 || counts["audit"] != 30 || counts["samples"] != 1 || counts["runs"] != 1 || counts["sessions"] != 1 {
		t.Fatalf("counts after finishing: %v", counts)
	}
	s, err := postgres.Open(ctx, dsn)
	must(t, err)
	defer s.Close()
	if r, err := s.Task(ctx, "job1"); err != nil || r.State != model.StateSucceeded {
		t.Fatalf("job1 finished after the snapshot: %+v %v", r, err)
	}
	if r, err := s.Task(ctx, "job130"); err != nil || r.State != model.StatePending {
		t.Fatalf("a task submitted after the snapshot: %+v %v", r, err)
	}
	if rs, _ := s.Runs(ctx, t0, t1.Add(time.Hour)); len(rs) != 1 || rs[0].Outcome != "succeeded" {
		t.Fatalf("the run ended after the snapshot: %+v", rs)
	}
	if ss, _ := s.Sessions(ctx); len(ss) != 1 || ss[0].StoppedAt.IsZero() {
		t.Fatalf("the session stopped after the snapshot: %+v", ss)
	}
	if toks, err := s.Tokens(ctx); err != nil || len(toks) != 1 || toks[0].RevokedAt.IsZero() {
		t.Fatalf("the token revoked after the snapshot: %+v %v", toks, err)
	}
	// New ids follow the copied ones.
	must(t, s.Commit(ctx, func(tx *postgres.Tx) error {
		return tx.AddEvent(model.Event{Task: "job130", TaskSeq: 130, Team: "t", At: t1, Kind: "Started"})
	}))
	if _, err := s.FinishSQLiteImport(ctx, path); err == nil || !strings.Contains(err.Error(), "finished already") {
		t.Fatalf("a second finish: %v", err)
	}
}
