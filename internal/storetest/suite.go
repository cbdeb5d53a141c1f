package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Run runs the whole suite against one adapter.
func Run[S Store[T], T Tx](t *testing.T, fresh Opener[S, T]) {
	tests := []struct {
		name string
		fn   func(*testing.T, func() S)
	}{
		{"DurableAcrossReopen", durableAcrossReopen[S, T]},
		{"FailedCommitWritesNothing", failedCommit[S, T]},
		{"RunsAndSessions", runsAndSessions[S, T]},
		{"Samples", samples[S, T]},
		{"TokensAndAudit", tokensAndAudit[S, T]},
		{"TeamTokensRevoked", teamTokensRevoked[S, T]},
		{"PruneAudit", pruneAudit[S, T]},
		{"ConcurrentReadsAndCommits", concurrent[S, T]},
		{"NameReuse", nameReuse[S, T]},
		{"TaskPages", taskPages[S, T]},
		{"TaskPageOneSnapshot", taskPageOneSnapshot[S, T]},
		{"TaskPageOrder", TaskPageOrder[S, T]},
		{"Preemptions", preemptions[S, T]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, fresh(t)) })
	}
}

func task(name string, seq int64, at time.Time) model.TaskRecord {
	return model.TaskRecord{Name: name, Team: "t", Seq: seq, State: model.StatePending, SubmittedAt: at,
		Spec: model.TaskSpec{Name: name, Team: "t", InstanceType: "ml.p5.48xlarge", Nodes: 2}}
}

// knobbedTeam sets every team field a restart must read back: lending
// limit, borrow cap, borrowWithinGroup, reclaimWithinGroup, queueingStrategy.
func knobbedTeam() model.Team {
	two, eight, w, pct := int64(2), int64(8), 50, 120
	vcpu, mem := 96.5, 1024.0
	return model.Team{Name: "k", Namespace: "ns-k", Group: "g", FairShareWeight: &w, Lending: model.LendAndBorrow,
		BorrowLimitPercent: &pct, PreemptTeamTasks: model.PreemptNever, ReclaimWithinGroup: model.ReclaimLowerPriority,
		QueueingStrategy:  model.StrictFIFO,
		BorrowWithinGroup: &model.BorrowWithinGroup{Policy: model.BorrowWithinGroupLowerPriority, MaxPriorityWeight: &w},
		Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: &two, BorrowCap: &model.Amount{GPUs: &eight},
			LendingLimit: &model.Amount{GPUs: &eight, VCPU: &vcpu, MemoryGiB: &mem}}}}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// durableAcrossReopen: committed tasks, events, the cluster and tokens
// survive closing and reopening the database, migrations run once, and
// every task query filters and pages as the API expects.
func durableAcrossReopen[S Store[T], T Tx](t *testing.T, open func() S) {
	ctx := context.Background()
	s := open()
	now := time.Unix(1700000000, 5).UTC()
	must(t, s.Commit(ctx, func(tx T) error {
		for i, name := range []string{"a", "b", "c"} {
			if err := tx.InsertTask(task(name, int64(i+1), now)); err != nil {
				return err
			}
			if err := tx.AddEvent(model.Event{Task: name, TaskSeq: int64(i + 1), Team: "t", At: now, Kind: "Submitted", Message: "queued"}); err != nil {
				return err
			}
		}
		b := task("b", 2, now)
		b.State, b.FinishedAt, b.Resumes, b.Retries, b.Message = model.StateSucceeded, now.Add(time.Second), 2, 1, "done"
		b.Placement = []model.PodPlacement{{Rank: 0, Node: "n1", GPUs: []int{0, 1}}}
		b.PGIDs = []int{42}
		b.IdempotencyKey, b.IdempotencyDigest, b.DeletedAt = "key-b", "digest-b", now.Add(2*time.Second)
		if err := tx.UpdateTask(b); err != nil {
			return err
		}
		if err := tx.PutCluster(model.Cluster{Teams: []model.Team{{Name: "t"}, knobbedTeam()}}); err != nil {
			return err
		}
		return tx.InsertToken(model.Token{ID: "tok-1", Role: model.RoleMember, Team: "t", CreatedAt: now}, "hash1")
	}))
	must(t, s.Close())

	s = open()
	defer s.Close()
	live, err := s.LiveTasks(ctx)
	if err != nil || len(live) != 2 || live[0].Name != "a" || live[1].Name != "c" || live[0].Spec.Nodes != 2 || !live[0].SubmittedAt.Equal(now) {
		t.Fatalf("live tasks after reopen: %+v %v", live, err)
	}
	b, err := s.Task(ctx, "b")
	if err != nil || b.State != model.StateSucceeded || !b.FinishedAt.Equal(now.Add(time.Second)) || b.Resumes != 2 || b.Retries != 1 ||
		b.Message != "done" || len(b.Placement) != 1 || b.Placement[0].Node != "n1" || len(b.PGIDs) != 1 || b.PGIDs[0] != 42 ||
		b.IdempotencyKey != "key-b" || b.IdempotencyDigest != "digest-b" || !b.DeletedAt.Equal(now.Add(2*time.Second)) {
		t.Fatalf("updated task after reopen: %+v %v", b, err)
	}
	if _, err := s.Task(ctx, "ghost"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("a missing task: %v, want ErrNotFound", err)
	}
	if n, err := s.MaxSeq(ctx); err != nil || n != 3 {
		t.Fatalf("max seq %d %v", n, err)
	}
	evs, _ := s.Events(ctx, "c", 0, 10)
	if len(evs) != 1 || evs[0].Kind != "Submitted" || !evs[0].At.Equal(now) {
		t.Fatalf("events: %+v", evs)
	}
	if more, _ := s.Events(ctx, "c", evs[0].ID, 10); len(more) != 0 {
		t.Fatalf("events after the last: %+v", more)
	}
	if at, err := s.LastEventAt(ctx); err != nil || !at.Equal(now) {
		t.Fatalf("last event at %v %v", at, err)
	}
	if c, ok, err := s.Cluster(ctx); err != nil || !ok || len(c.Teams) != 2 || c.Teams[0].Name != "t" || !reflect.DeepEqual(c.Teams[1], knobbedTeam()) {
		t.Fatalf("cluster: %+v %v %v", c, ok, err)
	}
	tok, err := s.TokenByHash(ctx, "hash1")
	if err != nil || tok.Team != "t" || !tok.CreatedAt.Equal(now) {
		t.Fatalf("token: %+v %v", tok, err)
	}
	page, _ := s.ListTasks(ctx, model.TaskFilter{Teams: []string{"t"}, States: []string{string(model.StatePending)}, AfterSeq: 1, Limit: 10})
	if len(page) != 1 || page[0].Name != "c" {
		t.Fatalf("filtered page: %+v", page)
	}
	if two, _ := s.ListTasks(ctx, model.TaskFilter{Limit: 2}); len(two) != 2 || two[0].Name != "a" || two[1].Name != "b" {
		t.Fatalf("first page of 2: %+v", two)
	}
	if other, _ := s.ListTasks(ctx, model.TaskFilter{Teams: []string{"u", "v"}, Limit: 10}); len(other) != 0 {
		t.Fatalf("tasks of other teams: %+v", other)
	}
	if all, _ := s.ListTasks(ctx, model.TaskFilter{Since: now, Limit: 10}); len(all) != 3 {
		t.Fatalf("tasks submitted since %v: %+v", now, all)
	}
	if none, _ := s.ListTasks(ctx, model.TaskFilter{Since: now.Add(time.Nanosecond), Limit: 10}); len(none) != 0 {
		t.Fatalf("tasks submitted after every one of them: %+v", none)
	}
}

// failedCommit: a transaction whose function fails, or whose write breaks
// a constraint, leaves nothing behind, and the store goes on working.
func failedCommit[S Store[T], T Tx](t *testing.T, open func() S) {
	ctx := context.Background()
	s := open()
	defer s.Close()
	now := time.Now().UTC()
	must(t, s.Commit(ctx, func(tx T) error { return tx.InsertTask(task("a", 1, now)) }))
	err := s.Commit(ctx, func(tx T) error {
		_ = tx.InsertTask(task("ghost", 9, now))
		_ = tx.AddEvent(model.Event{Task: "ghost", Team: "t", At: now, Kind: "Submitted"})
		return tx.InsertTask(task("a", 10, now)) // duplicate name
	})
	if err == nil {
		t.Fatal("a duplicate task name was committed")
	}
	boom := errors.New("boom")
	if err := s.Commit(ctx, func(tx T) error {
		_ = tx.InsertTask(task("ghost2", 11, now))
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("the function's error: %v", err)
	}
	for _, name := range []string{"ghost", "ghost2"} {
		if _, err := s.Task(ctx, name); !errors.Is(err, model.ErrNotFound) {
			t.Fatalf("a rolled-back insert of %s survived: %v", name, err)
		}
	}
	if evs, _ := s.Events(ctx, "ghost", 0, 10); len(evs) != 0 {
		t.Fatalf("a rolled-back event survived: %+v", evs)
	}
	must(t, s.Commit(ctx, func(tx T) error { return tx.InsertTask(task("b", 2, now)) }))
	if n, _ := s.MaxSeq(ctx); n != 2 {
		t.Fatalf("max seq %d after the failures, want 2", n)
	}
}

// runsAndSessions: runs open and close, CloseOpenRuns keeps adopted ones,
// Runs returns those overlapping a window; sessions record starts and stops.
func runsAndSessions[S Store[T], T Tx](t *testing.T, open func() S) {
	ctx := context.Background()
	s := open()
	defer s.Close()
	t0 := time.Unix(1700000000, 0).UTC()
	run := func(name string, at time.Time) model.Run {
		return model.Run{Task: name, Team: "t", InstanceType: "ml.p5.48xlarge", Priority: "high", GPUs: 8, VCPU: 1.5, BorrowedGPUs: 2, StartedAt: at}
	}
	must(t, s.Commit(ctx, func(tx T) error {
		for i, n := range []string{"a", "b", "c", "d"} {
			if err := tx.StartRun(run(n, t0.Add(time.Duration(i)*time.Minute))); err != nil {
				return err
			}
		}
		return tx.EndRun("a", t0.Add(30*time.Second), "Succeeded")
	}))
	var closed int64
	must(t, s.Commit(ctx, func(tx T) error {
		var err error
		closed, err = tx.CloseOpenRuns(t0.Add(time.Hour), "interrupted", map[string]bool{"c": true})
		return err
	}))
	if closed != 2 {
		t.Fatalf("closed %d open runs, want 2 (b and d; c is kept)", closed)
	}
	rs, err := s.Runs(ctx, t0.Add(45*time.Second), t0.Add(2*time.Hour))
	if err != nil || len(rs) != 3 || rs[0].Task != "b" || rs[1].Task != "c" || !rs[1].EndedAt.IsZero() ||
		rs[2].Outcome != "interrupted" || !rs[2].EndedAt.Equal(t0.Add(time.Hour)) || rs[0].VCPU != 1.5 || rs[0].BorrowedGPUs != 2 || rs[0].Priority != "high" {
		t.Fatalf("runs overlapping the window: %+v %v", rs, err)
	}
	if rs, _ := s.Runs(ctx, t0, t0.Add(10*time.Second)); len(rs) != 1 || rs[0].Task != "a" || rs[0].Outcome != "Succeeded" {
		t.Fatalf("runs of the first 10 s: %+v", rs)
	}
	id1, err := s.StartSession(ctx, t0)
	must(t, err)
	must(t, s.StopSession(ctx, id1, t0.Add(time.Minute)))
	id2, err := s.StartSession(ctx, t0.Add(2*time.Minute))
	must(t, err)
	if id2 == id1 {
		t.Fatalf("two sessions share id %d", id1)
	}
	ss, err := s.Sessions(ctx)
	if err != nil || len(ss) != 2 || !ss[0].StoppedAt.Equal(t0.Add(time.Minute)) || !ss[1].StoppedAt.IsZero() || !ss[1].StartedAt.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("sessions: %+v %v", ss, err)
	}
}

// samples: samples are stored per resolution, replaced on the same key, read
// from a time on, and pruned.
func samples[S Store[T], T Tx](t *testing.T, open func() S) {
	ctx := context.Background()
	s := open()
	defer s.Close()
	t0 := time.Unix(1700000000, 0).UTC()
	x := func(at time.Time, it string, used float64) model.Sample {
		return model.Sample{At: at, InstanceType: it, GPUs: 16, GPUsUsed: used, VCPU: 192, VCPUUsed: 10, MemGiB: 2048, MemUsedGiB: 100}
	}
	must(t, s.AddSamples(ctx, time.Minute, []model.Sample{x(t0, "p5", 1), x(t0, "p4", 2), x(t0.Add(time.Minute), "p5", 3)}))
	must(t, s.AddSamples(ctx, time.Minute, []model.Sample{x(t0, "p5", 4)})) // replaces
	must(t, s.AddSamples(ctx, time.Hour, []model.Sample{x(t0, "p5", 5)}))
	got, err := s.Samples(ctx, time.Minute, t0)
	if err != nil || len(got) != 3 || got[0].InstanceType != "p4" || got[1].GPUsUsed != 4 || got[2].GPUsUsed != 3 || got[1].MemGiB != 2048 {
		t.Fatalf("fine samples: %+v %v", got, err)
	}
	must(t, s.PruneSamples(ctx, time.Minute, t0.Add(time.Minute)))
	if got, _ := s.Samples(ctx, time.Minute, time.Time{}); len(got) != 1 || !got[0].At.Equal(t0.Add(time.Minute)) {
		t.Fatalf("fine samples after pruning: %+v", got)
	}
	if got, _ := s.Samples(ctx, time.Hour, time.Time{}); len(got) != 1 || got[0].GPUsUsed != 5 {
		t.Fatalf("coarse samples: %+v", got)
	}
}

// tokensAndAudit: tokens are found by hash until revoked; audit entries
// filter by team, target, actor and time and page by id.
func tokensAndAudit[S Store[T], T Tx](t *testing.T, open func() S) {
	ctx := context.Background()
	s := open()
	defer s.Close()
	t0 := time.Unix(1700000000, 0).UTC()
	must(t, s.Commit(ctx, func(tx T) error {
		if err := tx.InsertToken(model.Token{ID: "a", Role: model.RoleAdmin, CreatedAt: t0}, "ha"); err != nil {
			return err
		}
		return tx.InsertToken(model.Token{ID: "b", Role: model.RoleViewer, Team: "t", Note: "ci", CreatedAt: t0.Add(time.Second)}, "hb")
	}))
	if err := s.Commit(ctx, func(tx T) error {
		return tx.InsertToken(model.Token{ID: "c", Role: model.RoleAdmin, CreatedAt: t0}, "ha")
	}); err == nil {
		t.Fatal("two tokens with one hash were stored")
	}
	var found, again bool
	must(t, s.Commit(ctx, func(tx T) error {
		var err error
		if found, err = tx.RevokeToken("b", t0.Add(time.Minute)); err != nil {
			return err
		}
		again, err = tx.RevokeToken("b", t0.Add(2*time.Minute))
		return err
	}))
	if !found || again {
		t.Fatalf("revoke: first %v, second %v; want true, false", found, again)
	}
	if _, err := s.TokenByHash(ctx, "hb"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("a revoked token was found: %v", err)
	}
	toks, err := s.Tokens(ctx)
	if err != nil || len(toks) != 2 || toks[1].ID != "b" || !toks[1].RevokedAt.Equal(t0.Add(time.Minute)) || toks[1].Note != "ci" {
		t.Fatalf("tokens: %+v %v", toks, err)
	}
	must(t, s.Commit(ctx, func(tx T) error {
		for i := 0; i < 5; i++ {
			team := []string{"x", "y"}[i%2]
			if err := tx.Audit(model.AuditEntry{At: t0.Add(time.Duration(i) * time.Minute), Actor: fmt.Sprint("u", i%3), Action: "task.submit",
				Team: team, Target: fmt.Sprint("job", i), Result: "ok"}); err != nil {
				return err
			}
		}
		return nil
	}))
	all, _ := s.AuditLog(ctx, model.AuditFilter{})
	if len(all) != 5 || all[0].Target != "job0" || !all[4].At.Equal(t0.Add(4*time.Minute)) {
		t.Fatalf("audit log: %+v", all)
	}
	check := func(f model.AuditFilter, want ...string) {
		t.Helper()
		got, err := s.AuditLog(ctx, f)
		var names []string
		for _, e := range got {
			names = append(names, e.Target)
		}
		if err != nil || fmt.Sprint(names) != fmt.Sprint(want) {
			t.Fatalf("audit %+v: %v %v, want %v", f, names, err, want)
		}
	}
	check(model.AuditFilter{Team: "x"}, "job0", "job2", "job4")
	check(model.AuditFilter{Actor: "u1"}, "job1", "job4")
	check(model.AuditFilter{Target: "job3"}, "job3")
	check(model.AuditFilter{From: t0.Add(time.Minute), To: t0.Add(3 * time.Minute)}, "job1", "job2")
	check(model.AuditFilter{AfterID: all[1].ID, Limit: 2}, "job2", "job3")
	check(model.AuditFilter{Team: "y", Actor: "u0"}, "job3")
	check(model.AuditFilter{Action: "task.submit", Actor: "u2"}, "job2")
	check(model.AuditFilter{Action: "task"}) // exact, not a prefix
}

// teamTokensRevoked: revoking a team's tokens (as deleting the team does)
// revokes its live tokens only, and audits each, in the batch's
// transaction.
func teamTokensRevoked[S Store[T], T Tx](t *testing.T, open func() S) {
	ctx := context.Background()
	s := open()
	defer s.Close()
	t0 := time.Unix(1700000000, 0).UTC()
	must(t, s.Commit(ctx, func(tx T) error {
		for i, tok := range []model.Token{{ID: "d", Team: "gone"}, {ID: "e", Team: "gone"}, {ID: "f", Team: "kept"}, {ID: "g", Team: "gone"}} {
			tok.Role, tok.CreatedAt = model.RoleMember, t0
			if err := tx.InsertToken(tok, fmt.Sprint("h", i)); err != nil {
				return err
			}
		}
		_, err := tx.RevokeToken("g", t0)
		return err
	}))
	revoke := []model.Write{{RevokeTeamTokens: &model.TeamTokens{Team: "gone", Actor: "adm", At: t0.Add(time.Hour)}}}
	must(t, s.Commit(ctx, func(tx T) error { return model.ApplyTo(any(tx).(model.TxWriter), revoke) }))
	toks, err := s.Tokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range toks {
		want := map[string]time.Time{"d": t0.Add(time.Hour), "e": t0.Add(time.Hour), "f": {}, "g": t0}[tok.ID]
		if !tok.RevokedAt.Equal(want) {
			t.Errorf("token %s revoked at %v, want %v", tok.ID, tok.RevokedAt, want)
		}
	}
	audit, _ := s.AuditLog(ctx, model.AuditFilter{Actor: "adm"})
	var targets []string
	for _, a := range audit {
		if a.Action != "token.revoke" || a.Team != "gone" || a.Result != "team deleted" {
			t.Errorf("audit entry %+v", a)
		}
		targets = append(targets, a.Target)
	}
	if fmt.Sprint(targets) != "[d e]" && fmt.Sprint(targets) != "[e d]" {
		t.Errorf("audited revocations of %v, want d and e", targets)
	}
}

// pruneAudit deletes only entries and events older than the retention cut.
func pruneAudit[S Store[T], T Tx](t *testing.T, open func() S) {
	s := open()
	defer s.Close()
	ctx := context.Background()
	old, recent := time.Now().Add(-100*24*time.Hour), time.Now()
	must(t, s.Commit(ctx, func(tx T) error {
		_ = tx.Audit(model.AuditEntry{At: old, Actor: "x", Action: "a", Target: "t", Result: "ok"})
		_ = tx.AddEvent(model.Event{Task: "t", Team: "a", At: old, Kind: "Submitted", Message: "queued"})
		return tx.Audit(model.AuditEntry{At: recent, Actor: "x", Action: "b", Team: "a", Target: "t", Result: "ok"})
	}))
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

// concurrent: readers run beside a stream of commits and see each commit
// whole (a task and its event together) or not at all.
func concurrent[S Store[T], T Tx](t *testing.T, open func() S) {
	s := open()
	defer s.Close()
	ctx := context.Background()
	const n = 200
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errc := make(chan error, 4)
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				live, err := s.LiveTasks(ctx)
				if err != nil {
					errc <- err
					return
				}
				for i, r := range live {
					if r.Seq != int64(i+1) {
						errc <- fmt.Errorf("live tasks out of order or with a gap: %d at %d", r.Seq, i)
						return
					}
				}
			}
		}()
	}
	now := time.Now().UTC()
	for i := 1; i <= n; i++ {
		name := fmt.Sprint("task", i)
		must(t, s.Commit(ctx, func(tx T) error {
			if err := tx.InsertTask(task(name, int64(i), now)); err != nil {
				return err
			}
			return tx.AddEvent(model.Event{Task: name, Team: "t", At: now, Kind: "Submitted"})
		}))
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-errc:
		t.Fatal(err)
	default:
	}
	if live, _ := s.LiveTasks(ctx); len(live) != n {
		t.Fatalf("%d live tasks, want %d", len(live), n)
	}
}

// nameReuse: model.CheckNameReuse holds in the store: one live task per
// name; a finished task's name may be reused by its team, and the name then
// reads as the newest task, with its own events; another team is refused.
func nameReuse[S Store[T], T Tx](t *testing.T, open func() S) {
	ctx := context.Background()
	s := open()
	defer s.Close()
	now := time.Now().UTC()
	first := task("again", 1, now)
	must(t, s.Commit(ctx, func(tx T) error {
		if err := tx.InsertTask(first); err != nil {
			return err
		}
		return tx.AddEvent(model.Event{Task: "again", TaskSeq: 1, Team: "t", At: now, Kind: "Submitted"})
	}))
	if err := s.Commit(ctx, func(tx T) error { return tx.InsertTask(task("again", 2, now)) }); !errors.Is(err, model.ErrConflict) {
		t.Fatalf("a second live task under one name: %v", err)
	}
	first.State, first.FinishedAt = model.StateSucceeded, now
	must(t, s.Commit(ctx, func(tx T) error { return tx.UpdateTask(first) }))
	other := task("again", 3, now)
	other.Team, other.Spec.Team = "u", "u"
	if err := s.Commit(ctx, func(tx T) error { return tx.InsertTask(other) }); !errors.Is(err, model.ErrConflict) {
		t.Fatalf("another team reused a name: %v", err)
	}
	must(t, s.Commit(ctx, func(tx T) error {
		if err := tx.InsertTask(task("again", 4, now)); err != nil {
			return err
		}
		return tx.AddEvent(model.Event{Task: "again", TaskSeq: 4, Team: "t", At: now, Kind: "Resubmitted"})
	}))
	got, err := s.Task(ctx, "again")
	if err != nil || got.Seq != 4 || got.State != model.StatePending {
		t.Fatalf("the name reads as %+v, %v; want the newest task (seq 4)", got, err)
	}
	evs, err := s.Events(ctx, "again", 0, 10)
	if err != nil || len(evs) != 1 || evs[0].Kind != "Resubmitted" {
		t.Fatalf("events of the newest task: %+v %v", evs, err)
	}
	all, _ := s.ListTasks(ctx, model.TaskFilter{Limit: 10})
	if len(all) != 2 || all[0].State != model.StateSucceeded {
		t.Fatalf("both tasks are kept: %+v", all)
	}
}
