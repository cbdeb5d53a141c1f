package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/metrics"
	"github.com/taskgov/taskgov/internal/model"
)

// countListing counts the builds of the waiting list from now on.
func (h *harness) countListing(calls *int) {
	h.e.mu.Lock()
	h.e.waitingOf = func(s *core.Scheduler) []model.Waiting {
		*calls++
		return s.Waiting()
	}
	h.e.mu.Unlock()
}

// countList counts a list by team and reason, as /metrics should.
func countList(list []model.Waiting) []metrics.Pending {
	w := builtWaitView(list)
	return w.countsOf()
}

// TestMetricsDoNotListTheQueueEachScrape: a scrape counts pending tasks by
// team exactly from the task records without building the waiting list; it
// counts them by reason from the current list when one is built (a reader
// asked), else from the last list it counted while that is at most
// ReasonsMaxAge old (saying how old), else it builds the list, and then its
// counts are the list's.
func TestMetricsDoNotListTheQueueEachScrape(t *testing.T) {
	h := newHarness(t)
	h.fill() // "waits" of team a pends
	h.quiesce()
	calls := 0
	h.countListing(&calls)

	s := h.e.MetricsSnapshot() // nothing counted yet: it lists the queue
	list, _ := h.e.View().Waiting()
	if calls != 1 || !s.QueueListed || s.ReasonsAge != 0 || !slices.Equal(s.Pending, countList(list)) ||
		!slices.Equal(s.PendingByTeam, []metrics.TeamPending{{Team: "a", N: 1}}) {
		t.Fatalf("first scrape: %d builds, %+v; the list counts %+v", calls, s, countList(list))
	}
	if sum(s.Pending) != 1 {
		t.Fatalf("first scrape counts %d pending by reason, want 1", sum(s.Pending))
	}

	if err := h.submit("waits-b", "b", 1); err != nil { // a cycle: the list is stale
		t.Fatal(err)
	}
	h.quiesce()
	if h.e.View().wait.isBuilt() {
		t.Fatal("the list is built without a reader")
	}
	time.Sleep(10 * time.Millisecond)
	s = h.e.MetricsSnapshot()
	if calls != 1 {
		t.Fatalf("a scrape within %v of the last listing built the list (%d builds)", ReasonsMaxAge, calls)
	}
	if !s.QueueListed || s.ReasonsAge < 10*time.Millisecond || s.ReasonsAge > ReasonsMaxAge || sum(s.Pending) != 1 {
		t.Fatalf("a scrape reusing the last listing: %+v", s)
	}
	if !slices.Equal(s.PendingByTeam, []metrics.TeamPending{{Team: "a", N: 1}, {Team: "b", N: 1}}) {
		t.Fatalf("pending by team is not exact: %+v", s.PendingByTeam)
	}

	// A reader lists the queue: the scrape counts that list, current, without
	// another build.
	if _, total := h.e.View().QueuePage(nil, 0, 1); total != 2 || calls != 2 {
		t.Fatalf("queue read: total %d, %d builds", total, calls)
	}
	s = h.e.MetricsSnapshot()
	list, _ = h.e.View().Waiting()
	if calls != 2 || s.ReasonsAge != 0 || !slices.Equal(s.Pending, countList(list)) || sum(s.Pending) != 2 {
		t.Fatalf("scrape of a listed queue: %d builds, %+v", calls, s)
	}

	// Past ReasonsMaxAge the scrape lists the queue again.
	if err := h.submit("waits-a2", "a", 1); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	r := *h.e.reasons.Load()
	r.at = r.at.Add(-ReasonsMaxAge - time.Second)
	h.e.reasons.Store(&r)
	s = h.e.MetricsSnapshot()
	list, _ = h.e.View().Waiting()
	if calls != 3 || s.ReasonsAge != 0 || !slices.Equal(s.Pending, countList(list)) || sum(s.Pending) != 3 ||
		!slices.Equal(s.PendingByTeam, []metrics.TeamPending{{Team: "a", N: 2}, {Team: "b", N: 1}}) {
		t.Fatalf("scrape past the age bound: %d builds, %+v", calls, s)
	}
}

func sum(p []metrics.Pending) (n int) {
	for _, x := range p {
		n += x.N
	}
	return n
}
