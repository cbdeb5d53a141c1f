package core

import (
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestStopAfterCompletion: on a settled deep queue (1,000 tasks on 100
// nodes, four teams that lend but do not borrow, so no search has
// candidates), the cycle after a completion or a node failure stops its walk
// early and tries a fraction of the pending tasks, and its decision and its
// waiting list (with the deferred tries rendered) equal a full rescan's.
func TestStopAfterCompletion(t *testing.T) {
	c := multiTypeCluster(100, 4, 1)
	for k := range c.Teams {
		c.Teams[k].Lending = model.LendOnly
	}
	inc, ref := settledPair(t, c)
	r := rand.New(rand.NewSource(2))
	now := epoch.Add(time.Second)
	for k := 0; k < 10; k++ {
		pending := inc.Pending()
		if k%2 == 0 {
			run := runningTasks(inc)
			name := run[r.Intn(len(run))]
			for _, s := range []*Scheduler{inc, ref} {
				if err := s.Complete(name); err != nil {
					t.Fatal(err)
				}
			}
		} else {
			n := inc.nodes[r.Intn(len(inc.nodes))].spec.Name
			for _, s := range []*Scheduler{inc, ref} {
				if err := s.SetNodeHealth(n, false, now); err != nil {
					t.Fatal(err)
				}
			}
		}
		tried, stops := inc.tried, inc.stops.stops
		a, b := inc.Schedule(now), ref.Schedule(now)
		a.Waiting = inc.Waiting()
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("input %d: incremental and full rescan differ:\n%s", k, firstDiff(a, b))
		}
		if inc.stops.renderHits != 0 {
			t.Fatalf("input %d: %d deferred tries would have changed something", k, inc.stops.renderHits)
		}
		if inc.stops.stops == stops || inc.tried-tried > uint64(pending/4) {
			t.Fatalf("input %d: tried %d of %d pending, stops %d: the walk did not stop early", k, inc.tried-tried, pending, inc.stops.stops-stops)
		}
		t.Logf("input %d: tried %d of %d pending", k, inc.tried-tried, pending)
		for _, s := range []*Scheduler{inc, ref} {
			settle(s, now)
		}
	}
}

// settledPair returns two cores on cluster c holding the same 1,000 settled
// benchmark tasks: one incremental, one full-rescan reference, each timed
// in its mode (timedMode).
func settledPair(t *testing.T, c model.Cluster) (inc, ref *Scheduler) {
	t.Helper()
	build := func(full bool) *Scheduler {
		s, err := New(c, 1)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewSource(1))
		for k := 0; k < 1000; k++ {
			if err := s.Submit(benchTask(r, k, 4), epoch); err != nil {
				t.Fatal(err)
			}
		}
		settle(s, epoch)
		timedMode(s, full)
		return s
	}
	return build(false), build(true)
}
