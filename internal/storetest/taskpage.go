package storetest

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// pageStates are the states SeedTasks gives its tasks, in turn.
var pageStates = []model.TaskState{model.StatePending, model.StateRunning, model.StateSucceeded, model.StateFailed,
	model.StateCancelled, model.StateSuspended, model.StatePending}

// SeedTasks stores n tasks of three teams in every state, in commits of
// 500 (a PostgreSQL commit must finish within 10 s): one in 50 deleted, one in 3 with runs (one in 5 of those ended in
// a preemption, one in 7 in a suspension, a Running task's run open), as a
// long-lived server holds them. Names are "<team>-<i>" and one in 11 has
// "-eval-" in it. t0 is the first submission; tasks follow a second apart.
func SeedTasks[S Store[T], T Tx](ctx context.Context, s S, n int, t0 time.Time) error {
	teams := []string{"research", "product", "platform"}
	const batch = 500
	for from := 0; from < n; from += batch {
		err := s.Commit(ctx, func(tx T) error {
			for i := from; i < min(n, from+batch); i++ {
				team := teams[i%3]
				name := fmt.Sprintf("%s-%06d", team, i)
				if i%11 == 0 {
					name = fmt.Sprintf("%s-eval-%06d", team, i)
				}
				sub := t0.Add(time.Duration(i) * time.Second)
				r := model.TaskRecord{Name: name, Team: team, Seq: int64(i + 1), State: model.StatePending, SubmittedAt: sub,
					Spec: model.TaskSpec{Name: name, Team: team, InstanceType: "ml.p5.48xlarge", Nodes: 1 + i%4, Priority: "training",
						Command: []string{"sleep", "60"}}}
				if err := tx.InsertTask(r); err != nil {
					return err
				}
				r.State = pageStates[i%len(pageStates)]
				r.Resumes = i % 5
				if i%3 == 0 {
					r.StartedAt = sub.Add(time.Duration(i%600) * time.Second)
					run := model.Run{Task: name, Team: team, InstanceType: "ml.p5.48xlarge", GPUs: 8, VCPU: 1, StartedAt: r.StartedAt}
					if err := tx.StartRun(run); err != nil {
						return err
					}
					if r.State != model.StateRunning {
						outcome := string(r.State)
						switch {
						case i%5 == 0:
							outcome = "preempted: Reclaim"
						case i%7 == 0:
							outcome = "preempted: " + string(model.Suspended)
						}
						if err := tx.EndRun(name, r.StartedAt.Add(time.Duration(1+i%900)*time.Second), outcome); err != nil {
							return err
						}
					}
				}
				if r.State.Terminal() {
					r.FinishedAt = sub.Add(time.Hour)
				}
				if i%50 == 7 {
					r.DeletedAt = sub.Add(2 * time.Hour)
				}
				if err := tx.UpdateTask(r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// refPage is the dumb reference of Store.TaskPage: every task read, then
// filtered and sorted in Go.
func refPage(all []model.TaskRecord, f model.TaskPageFilter) (names []string, total int) {
	var rows []model.TaskRecord
	for _, r := range all {
		if (len(f.Teams) > 0 && !slices.Contains(f.Teams, r.Team)) || (len(f.States) > 0 && !slices.Contains(f.States, string(r.State))) ||
			!strings.Contains(r.Name, f.Search) || (r.Deleted() && !f.Deleted) {
			continue
		}
		rows = append(rows, r)
	}
	key := map[string]func(a, b model.TaskRecord) int{
		"name": func(a, b model.TaskRecord) int { return cmp.Compare(a.Name, b.Name) }, "team": func(a, b model.TaskRecord) int { return cmp.Compare(a.Team, b.Team) },
		"state": func(a, b model.TaskRecord) int { return cmp.Compare(a.State, b.State) }, "submittedAt": func(a, b model.TaskRecord) int { return 0 },
		"startedAt": func(a, b model.TaskRecord) int { return a.StartedAt.Compare(b.StartedAt) }, "resumes": func(a, b model.TaskRecord) int { return cmp.Compare(a.Resumes, b.Resumes) },
	}[f.Sort]
	slices.SortFunc(rows, func(a, b model.TaskRecord) int {
		c := cmp.Or(key(a, b), cmp.Compare(a.Seq, b.Seq))
		if f.Desc {
			c = -c
		}
		return c
	})
	for _, r := range rows[min(f.Offset, len(rows)):min(f.Offset+f.Limit, len(rows))] {
		names = append(names, r.Name)
	}
	return names, len(rows)
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// refFacts is the dumb reference of Store.TaskFacts.
func refFacts(all []model.TaskRecord, runs []model.Run, teams []string, now time.Time) model.TaskFacts {
	type agg struct {
		first     time.Time
		ran       time.Duration
		preempted bool
	}
	byTask := map[string]*agg{}
	for _, r := range runs {
		a := byTask[r.Task]
		if a == nil {
			a = &agg{first: r.StartedAt}
			byTask[r.Task] = a
		}
		if r.StartedAt.Before(a.first) {
			a.first = r.StartedAt
		}
		end := r.EndedAt
		if end.IsZero() {
			end = now
		}
		a.ran += end.Sub(r.StartedAt)
		if strings.HasPrefix(r.Outcome, "preempted: ") && r.Outcome != "preempted: "+string(model.Suspended) {
			a.preempted = true
		}
	}
	f := model.TaskFacts{Counts: map[model.TaskState]int{}}
	for _, r := range all {
		if len(teams) > 0 && !slices.Contains(teams, r.Team) {
			continue
		}
		f.Counts[r.State]++
		a := byTask[r.Name]
		if a == nil {
			a = &agg{}
		}
		if a.preempted {
			f.Preempted++
		}
		switch {
		case !a.first.IsZero():
			f.WaitMillis += ms(a.first.Sub(r.SubmittedAt))
		case !r.FinishedAt.IsZero():
			f.WaitMillis += ms(r.FinishedAt.Sub(r.SubmittedAt))
		default:
			f.WaitMillis += ms(now.Sub(r.SubmittedAt))
		}
		if r.State.Terminal() && a.ran > 0 {
			f.RunMillis += ms(a.ran)
			f.RunN++
		}
	}
	return f
}

// taskPages: a page and its total, for random filters, sorts, directions,
// offsets and searches (LIKE's wildcards taken literally), are what
// reading every task and sorting in Go gives; so are the summary's facts.
func taskPages[S Store[T], T Tx](t *testing.T, open func() S) {
	ctx := context.Background()
	s := open()
	defer s.Close()
	t0 := time.Unix(1700000000, 0).UTC()
	must(t, SeedTasks(ctx, s, 700, t0))
	must(t, s.Commit(ctx, func(tx T) error { // names with LIKE's wildcards in them
		for i, name := range []string{"odd_name", "odd%name", `odd\name`} {
			r := task(name, int64(1000+i), t0)
			r.Team = "research"
			if err := tx.InsertTask(r); err != nil {
				return err
			}
		}
		return nil
	}))
	all, err := s.ListTasks(ctx, model.TaskFilter{Limit: 1 << 30})
	must(t, err)
	rng := rand.New(rand.NewPCG(15, 15))
	teams := []string{"research", "product", "platform", "nobody"}
	sorts := slices.Sorted(func(yield func(string) bool) {
		for k := range model.StoredTaskSorts {
			if !yield(k) {
				return
			}
		}
	})
	pick := func(from []string) []string {
		var out []string
		for _, v := range from {
			if rng.IntN(4) == 0 {
				out = append(out, v)
			}
		}
		return out
	}
	states := make([]string, len(pageStates))
	for i, st := range pageStates {
		states[i] = string(st)
	}
	searches := []string{"", "", "eval", "-00012", "_", "%", `\`, "odd", "zz"}
	for i := range 300 {
		f := model.TaskPageFilter{Teams: pick(teams), States: pick(states[:6]), Search: searches[rng.IntN(len(searches))],
			Sort: sorts[rng.IntN(len(sorts))], Desc: rng.IntN(2) == 0, Offset: []int{0, 0, 10, 95, 400, 5000}[rng.IntN(6)],
			Limit: []int{1, 7, 50}[rng.IntN(3)], Deleted: rng.IntN(4) == 0}
		got, err := s.TaskPage(ctx, f)
		must(t, err)
		names := make([]string, len(got.Tasks))
		for j, r := range got.Tasks {
			names[j] = r.Name
		}
		want, total := refPage(all, f)
		if !slices.Equal(names, want) || got.Total != total {
			t.Fatalf("case %d %+v:\n got %d %v\nwant %d %v", i, f, got.Total, names, total, want)
		}
	}
	runs, err := s.Runs(ctx, t0.Add(-time.Hour), t0.Add(1000*time.Hour))
	must(t, err)
	now := t0.Add(800 * time.Second) // some tasks not yet started, some runs open
	for _, ts := range [][]string{nil, {"research"}, {"product", "platform"}, {"nobody"}} {
		got, err := s.TaskFacts(ctx, ts, now)
		must(t, err)
		want := refFacts(all, runs, ts, now)
		if fmt.Sprint(got.Counts, got.Preempted, got.RunN) != fmt.Sprint(want.Counts, want.Preempted, want.RunN) ||
			math.Abs(got.WaitMillis-want.WaitMillis) > 1e-6*want.WaitMillis || math.Abs(got.RunMillis-want.RunMillis) > 1e-6*want.RunMillis {
			t.Fatalf("facts of %v:\n got %+v\nwant %+v", ts, got, want)
		}
	}
}

// pageReadHooker is what a store offers its own tests (export_test.go) to
// run code between a task page's read and its counts.
type pageReadHooker interface{ AfterPageRead(fn func()) }

// taskPageOneSnapshot: a page, its total and its deleted count are read in
// one snapshot, so a commit between the reads (a submission, a deletion)
// cannot make the total disagree with the page; the next read shows it.
func taskPageOneSnapshot[S Store[T], T Tx](t *testing.T, open func() S) {
	ctx := context.Background()
	s := open()
	defer s.Close()
	h, ok := any(s).(pageReadHooker)
	if !ok {
		t.Skip("the store offers no AfterPageRead hook to its tests")
	}
	t0 := time.Unix(1700000000, 0).UTC()
	must(t, s.Commit(ctx, func(tx T) error {
		for i := range 5 {
			if err := tx.InsertTask(task(fmt.Sprintf("p%d", i), int64(i+1), t0)); err != nil {
				return err
			}
		}
		return nil
	}))
	f := model.TaskPageFilter{Sort: "submittedAt", Limit: 50}
	between := []struct {
		what  string
		write func(tx T) error
		after int
	}{
		{"a submission", func(tx T) error { return tx.InsertTask(task("p5", 6, t0)) }, 6},
		{"a deletion", func(tx T) error {
			r := task("p0", 1, t0)
			r.DeletedAt = t0.Add(time.Minute)
			return tx.UpdateTask(r)
		}, 5},
	}
	for _, c := range between {
		h.AfterPageRead(func() { must(t, s.Commit(ctx, c.write)) })
		got, err := s.TaskPage(ctx, f)
		h.AfterPageRead(nil)
		must(t, err)
		if got.Total != len(got.Tasks) {
			t.Fatalf("%s committed between the reads: the page has %d tasks but its total says %d", c.what, len(got.Tasks), got.Total)
		}
		got, err = s.TaskPage(ctx, f)
		must(t, err)
		if got.Total != c.after || len(got.Tasks) != c.after {
			t.Fatalf("after %s: page of %d, total %d; want %d", c.what, len(got.Tasks), got.Total, c.after)
		}
	}
}

// TaskPageOrder: the name and team orders are bytewise, as Go compares
// strings, whatever the database's locale: "a-c" before "a_b" before "ab"
// (ICU's English puts "_" before "-"; glibc's ignores both, putting "a-c"
// after "ab").
// internal/postgres runs it on a database whose default collation is ICU's
// English too.
func TaskPageOrder[S Store[T], T Tx](t *testing.T, open func() S) {
	ctx := context.Background()
	s := open()
	defer s.Close()
	t0 := time.Unix(1700000000, 0).UTC()
	names := []string{"ab", "a-c", "a.d", "a_b", "b_", "ba", "a0", "a-a"}
	teams := []string{"tb", "t-c", "ta", "t-a", "t0", "t_", "tb", "t-c"}
	must(t, s.Commit(ctx, func(tx T) error {
		for i, name := range names {
			r := task(name, int64(i+1), t0)
			r.Team, r.Spec.Team = teams[i], teams[i]
			if err := tx.InsertTask(r); err != nil {
				return err
			}
		}
		return nil
	}))
	all, err := s.ListTasks(ctx, model.TaskFilter{Limit: 100})
	must(t, err)
	for _, sort := range []string{"name", "team"} {
		for _, desc := range []bool{false, true} {
			f := model.TaskPageFilter{Sort: sort, Desc: desc, Limit: 100}
			got, err := s.TaskPage(ctx, f)
			must(t, err)
			var gotNames []string
			for _, r := range got.Tasks {
				gotNames = append(gotNames, r.Name)
			}
			if want, _ := refPage(all, f); !slices.Equal(gotNames, want) {
				t.Errorf("sorted by %s (desc %v):\n got %v\nwant %v (bytewise)", sort, desc, gotNames, want)
			}
		}
	}
}
