package storetest

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// PageScale stores n tasks (SeedTasks) and times, in one run so that the
// machine's load is the same for all, what the dashboard's first task page
// cost before (every task and every run read, as the API's task cache
// loaded them) and what it costs now: each filter's first page with its
// total, and, apart, the summary's facts over its teams (which the page
// does not wait for, and the API counts at most every 10 s). Each is the
// best of three, alternated. It fails if a first page is not at least
// minRatio times faster than the full read, or the facts not at least
// twice as fast.
func PageScale[S Store[T], T Tx](t *testing.T, s S, n int, minRatio float64) {
	ctx := context.Background()
	t0 := time.Now().Add(-time.Duration(n+3600) * time.Second).UTC()
	start := time.Now()
	must(t, SeedTasks(ctx, s, n, t0))
	t.Logf("stored %d tasks in %v", n, time.Since(start).Round(time.Millisecond))
	now := time.Now().UTC()
	full := func() time.Duration {
		start := time.Now()
		recs, err := s.ListTasks(ctx, model.TaskFilter{Limit: math.MaxInt32})
		must(t, err)
		_, err = s.Runs(ctx, t0, now.Add(time.Hour))
		must(t, err)
		if len(recs) != n {
			t.Fatalf("read %d tasks, stored %d", len(recs), n)
		}
		return time.Since(start)
	}
	cases := []struct {
		name string
		f    model.TaskPageFilter
	}{
		{"all", model.TaskPageFilter{}},
		{"team", model.TaskPageFilter{Teams: []string{"product"}}},
		{"state", model.TaskPageFilter{States: []string{"Running"}}},
		{"team+state", model.TaskPageFilter{Teams: []string{"product"}, States: []string{"Pending"}}},
		{"search", model.TaskPageFilter{Search: "eval"}},
		{"team+name sort", model.TaskPageFilter{Teams: []string{"research"}, Sort: "name"}},
	}
	first := func(f model.TaskPageFilter) (page, facts time.Duration) {
		f.Sort, f.Desc, f.Limit = cmpOr(f.Sort, "submittedAt"), true, 50
		start := time.Now()
		p, err := s.TaskPage(ctx, f)
		must(t, err)
		page = time.Since(start)
		if len(p.Tasks) != 50 || p.Total < 50 {
			t.Fatalf("%+v: %d tasks of %d", f, len(p.Tasks), p.Total)
		}
		start = time.Now()
		_, err = s.TaskFacts(ctx, f.Teams, now)
		must(t, err)
		return page, time.Since(start)
	}
	// Alternate, best of three each, so that a burst of load hurts neither
	// side alone.
	best := func(d, prev time.Duration) time.Duration {
		if prev == 0 || d < prev {
			return d
		}
		return prev
	}
	var fullBest time.Duration
	pages, facts := make([]time.Duration, len(cases)), make([]time.Duration, len(cases))
	for range 3 {
		fullBest = best(full(), fullBest)
		for i, c := range cases {
			p, f := first(c.f)
			pages[i], facts[i] = best(p, pages[i]), best(f, facts[i])
		}
	}
	t.Logf("every task and run read (the old first read): %v", fullBest.Round(time.Millisecond))
	for i, c := range cases {
		ratio, fratio := float64(fullBest)/float64(pages[i]), float64(fullBest)/float64(facts[i])
		t.Logf("first page of %-14s with its total: %8v (%4.0f× less); summary facts over its teams: %8v (%.1f× less)", c.name,
			pages[i].Round(time.Millisecond), ratio, facts[i].Round(time.Millisecond), fratio)
		if ratio < minRatio {
			t.Errorf("first page of %s: %v, only %.1f× faster than reading every task (%v); want %v×", c.name, pages[i], ratio, fullBest, minRatio)
		}
		if fratio < 2 {
			t.Errorf("summary facts of %s: %v, only %.1f× faster than reading every task (%v); want 2×", c.name, facts[i], fratio, fullBest)
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
