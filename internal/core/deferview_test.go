package core

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// deferredTasks lists type i's deferred tries in render order.
func deferredTasks(s *Scheduler, i int) []*task {
	var out []*task
	for _, g := range s.stops.deferred[i] {
		out = append(out, g.q...)
	}
	return out
}

// viewsAfterRewrite stops a walk after a completion on a settled deep queue,
// then rewrites every team's lists in place the two ways the core does: a
// task filed at its place at the front (insertTail) and a full sort
// (splitByType). It returns the deferred tries before and after, and the
// scheduler, whose deferred tries are then rendered.
func viewsAfterRewrite(t *testing.T, broken bool) (before, after []*task, s *Scheduler, ty int) {
	t.Helper()
	c := multiTypeCluster(100, 4, 1)
	for k := range c.Teams {
		c.Teams[k].Lending = model.LendOnly
	}
	s, _ = settledPair(t, c)
	s.breakViews = broken
	now := epoch.Add(time.Second)
	r := rand.New(rand.NewSource(2))
	for stops := s.stops.stops; s.stops.stops == stops; {
		run := runningTasks(s)
		if err := s.Complete(run[r.Intn(len(run))]); err != nil {
			t.Fatal(err)
		}
		s.Schedule(now)
	}
	ty = s.typeIdx[c.NodeGroups[0].InstanceType]
	before = slices.Clone(deferredTasks(s, ty))
	if len(before) < 100 {
		t.Fatalf("the walk deferred %d tries: too few to test", len(before))
	}
	for k, tm := range s.teams {
		if k%2 == 1 {
			tm.unsort() // a full sort
			sortQueue(tm)
			continue
		}
		// Submitted before every queued task: filed at the front of its list.
		spec := benchTask(r, 100000+k, len(s.teams))
		spec.Team, spec.InstanceType = tm.spec.Name, c.NodeGroups[0].InstanceType
		if err := s.Submit(spec, epoch.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		sortQueue(tm)
	}
	return before, deferredTasks(s, ty), s, ty
}

// TestDeferredViewsSurviveRewrite: a stopped walk's deferred tries are
// views of the teams' lists (deferview.go); a list rewritten in place while
// a view is live gets a new array, so the deferred tries stay the tasks, in
// the order, they were at the stop, and rendering them writes a reason for
// each pending one.
func TestDeferredViewsSurviveRewrite(t *testing.T) {
	before, after, s, ty := viewsAfterRewrite(t, false)
	if !slices.Equal(before, after) {
		t.Fatalf("the deferred tries changed when the lists were rewritten: %d before, %d after", len(before), len(after))
	}
	s.renderDeferred()
	if len(s.stops.deferred[ty]) != 0 || s.stops.deferredN[ty] != 0 {
		t.Fatal("the render left deferred tries")
	}
	for _, tm := range s.teams {
		if tm.isViewed(ty) {
			t.Fatalf("team %s: still marked viewed after the render dropped the views", tm.spec.Name)
		}
	}
	if s.stops.renderHits != 0 {
		t.Fatalf("%d deferred tries would have changed something", s.stops.renderHits)
	}
}

// TestDeferredViewsCaughtWhenUnmarked: with the views left unmarked
// (breakViews), the rewrites land in the views' arrays, and the test above
// sees the deferred tries change.
func TestDeferredViewsCaughtWhenUnmarked(t *testing.T) {
	before, after, _, _ := viewsAfterRewrite(t, true)
	if slices.Equal(before, after) {
		t.Fatal("with the views unmarked, the rewrites left the deferred tries as they were")
	}
}

// TestDifferentialCatchesBrokenViews: the randomized differential test sees
// the same bug (breakViews) as a decision, reason or position that differs
// from the full rescan's, or as a render that reads an entry a rewrite
// cleared (a crash, reported as the error).
func TestDifferentialCatchesBrokenViews(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		if err := recovered(func() error { return differentialRun(seed, 2000, "views") }); err != nil {
			t.Logf("caught, as it must be (seed %d): %v", seed, err)
			return
		}
	}
	t.Fatal("with the deferred views unmarked, the differential test found no difference")
}

// recovered runs f, turning a panic into its error.
func recovered(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return f()
}
