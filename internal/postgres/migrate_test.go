package postgres_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/sqlite"
)

// TestImportSQLite: an installation's SQLite database moves into PostgreSQL
// whole (every table, token hashes and ids included), the counts match, the
// moved store goes on (new ids follow the old ones), and a second import
// into the now non-empty database is refused and changes nothing.
func TestImportSQLite(t *testing.T) {
	open := fresh(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "taskgov.db")
	src, err := sqlite.Open(path)
	must(t, err)
	now := time.Unix(1700000000, 0).UTC()
	must(t, src.Commit(ctx, func(tx *sqlite.Tx) error {
		must(t, tx.PutCluster(model.Cluster{Teams: []model.Team{{Name: "t"}}}))
		for i := 1; i <= 250; i++ {
			name := fmt.Sprint("job", i)
			must(t, tx.InsertTask(model.TaskRecord{Name: name, Team: "t", Seq: int64(i), State: model.StatePending, SubmittedAt: now,
				Spec: model.TaskSpec{Name: name, Team: "t", Nodes: 1}}))
			must(t, tx.AddEvent(model.Event{Task: name, TaskSeq: int64(i), Team: "t", At: now, Kind: "Submitted", Message: "queued"}))
			must(t, tx.Audit(model.AuditEntry{At: now, Actor: "u", Action: "task.submit", Team: "t", Target: name, Result: "ok"}))
		}
		must(t, tx.StartRun(model.Run{Task: "job1", Team: "t", InstanceType: "p5", GPUs: 8, VCPU: 1.5, StartedAt: now}))
		must(t, tx.AddPreemption(model.PreemptionRecord{At: now, Task: "job3", Team: "t", Reason: model.Reclaim, Preemptor: "x", PreemptorTeam: "u",
			GPUs: 8, WorkGPUSeconds: 12.5, RestartGPUSeconds: 480}))
		deleted := model.TaskRecord{Name: "job2", Team: "t", Seq: 2, State: model.StateCancelled, SubmittedAt: now, DeletedAt: now,
			Spec: model.TaskSpec{Name: "job2", Team: "t", Nodes: 1}}
		must(t, tx.UpdateTask(deleted))
		return tx.InsertToken(model.Token{ID: "tok", Role: model.RoleAdmin, CreatedAt: now}, "secret-hash")
	}))
	_, err = src.StartSession(ctx, now)
	must(t, err)
	must(t, src.AddSamples(ctx, time.Minute, []model.Sample{{At: now, InstanceType: "p5", GPUs: 16, GPUsUsed: 8}}))
	src.Close()

	dst := open()
	defer dst.Close()
	res, err := dst.ImportSQLite(ctx, path)
	must(t, err)
	counts := res.Counts
	if res.Holder != 0 {
		t.Fatalf("no server had the file open, yet the import says pid %d had", res.Holder)
	}
	if counts["tasks"] != 250 || counts["events"] != 250 || counts["audit"] != 250 || counts["tokens"] != 1 || counts["runs"] != 1 ||
		counts["sessions"] != 1 || counts["samples"] != 1 || counts["cluster"] != 1 || counts["preemptions"] != 1 {
		t.Fatalf("counts: %v", counts)
	}
	if tok, err := dst.TokenByHash(ctx, "secret-hash"); err != nil || tok.ID != "tok" {
		t.Fatalf("the moved token: %+v %v", tok, err)
	}
	if live, _ := dst.LiveTasks(ctx); len(live) != 249 || live[248].Name != "job250" || !live[0].SubmittedAt.Equal(now) {
		t.Fatalf("moved tasks: %d", len(live))
	}
	if rs, _ := dst.Runs(ctx, now, now.Add(time.Hour)); len(rs) != 1 || rs[0].VCPU != 1.5 {
		t.Fatalf("moved runs: %+v", rs)
	}
	if pg, err := dst.TaskPage(ctx, model.TaskPageFilter{Sort: "submittedAt", Limit: 1000}); err != nil || pg.Total != 249 || len(pg.Tasks) != 249 {
		t.Fatalf("the moved task page leaves out the deleted task: %d of %d, %v", len(pg.Tasks), pg.Total, err)
	}
	must(t, dst.Commit(ctx, func(tx *postgres.Tx) error {
		if err := tx.AddPreemption(model.PreemptionRecord{At: now, Task: "job4", Team: "t", Reason: model.WithinTeamPriority, GPUs: 8}); err != nil {
			return err
		}
		return tx.AddEvent(model.Event{Task: "job1", TaskSeq: 1, Team: "t", At: now, Kind: "Started"})
	}))
	if ps, err := dst.Preemptions(ctx, model.PreemptionFilter{}); err != nil || len(ps) != 2 || ps[0].Task != "job4" || ps[1].Task != "job3" ||
		ps[1].WorkGPUSeconds != 12.5 || ps[1].PreemptorTeam != "u" || ps[0].ID <= ps[1].ID {
		t.Fatalf("moved preemptions and one after the move: %+v %v", ps, err)
	}
	if evs, _ := dst.Events(ctx, "job1", 0, 10); len(evs) != 2 || evs[1].ID <= evs[0].ID {
		t.Fatalf("an event after the move: %+v", evs)
	}
	if _, err := dst.ImportSQLite(ctx, path); err == nil || !strings.Contains(err.Error(), "empty database") {
		t.Fatalf("a second import: %v", err)
	}
	if live, _ := dst.LiveTasks(ctx); len(live) != 249 {
		t.Fatalf("the refused import changed the tasks: %d", len(live))
	}
}
