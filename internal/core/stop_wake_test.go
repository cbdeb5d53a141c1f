package core

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"
)

// TestStopAsksForTheTailsWakeUp: on a settled deep queue where every team
// runs exactly its quota (1,000 tasks on 100 nodes, four teams that lend
// and borrow: the one-input benchmark's shape), a completion leaves its team
// below its quota, and that team's waiting tasks that fit the rest ask for a
// wake-up at their starvation due. The walk stops once the freed room is
// used and asks for that wake-up itself (stopwake.go), trying a fraction of
// the queue; its decision, waiting list and next wake-up equal the full
// rescan's. With the stop made to leave the wake-up out (breakStopWake) the
// cores differ: the proof that the test sees the bug.
func TestStopAsksForTheTailsWakeUp(t *testing.T) {
	if err := stopWakeRun(t, false); err != nil {
		t.Fatal(err)
	}
	if err := stopWakeRun(t, true); err == nil {
		t.Fatal("with a stop that leaves out its tail's wake-up, the cores still agree")
	} else {
		t.Logf("with the bug injected, as it must: %v", err)
	}
}

// cycleBoth runs a cycle on the incremental core and the full rescan and
// says how they differ, if they do: decision and waiting list, a deferred
// try that would have changed something, or the next wake-up.
func cycleBoth(inc, ref *Scheduler, now time.Time, what string) error {
	a, b := inc.Schedule(now), ref.Schedule(now)
	a.Waiting = inc.Waiting()
	switch {
	case !reflect.DeepEqual(a, b):
		return fmt.Errorf("%s: incremental and full rescan differ:\n%s", what, firstDiff(a, b))
	case inc.stops.renderHits != 0:
		return fmt.Errorf("%s: %d deferred tries would have changed something", what, inc.stops.renderHits)
	case !inc.nextWake.Equal(ref.nextWake):
		return fmt.Errorf("%s: next wake-up %v, the full rescan's %v", what, inc.nextWake, ref.nextWake)
	}
	return nil
}

func stopWakeRun(t *testing.T, bug bool) error {
	c := multiTypeCluster(100, 4, 1)
	inc, ref := settledPair(t, c)
	inc.breakStopWake = bug
	for _, tm := range inc.teams {
		if tm.usage[0] != tm.quota[0] {
			t.Fatalf("team %s runs %v of its quota %v: the setup is not the benchmark's", tm.spec.Name, tm.usage[0], tm.quota[0])
		}
	}
	r := rand.New(rand.NewSource(2))
	now := epoch.Add(time.Second)
	asked := 0
	for k := 0; k < 6; k++ {
		pending := inc.Pending()
		run := runningTasks(inc)
		name := run[r.Intn(len(run))]
		for _, s := range []*Scheduler{inc, ref} {
			if err := s.Complete(name); err != nil {
				t.Fatal(err)
			}
		}
		borrowing := false
		for _, tm := range inc.teams {
			for i := range tm.usage {
				borrowing = borrowing || !tm.usage[i].LessEq(tm.quota[i])
			}
		}
		tried, wakes := inc.tried, inc.stops.wakes
		if err := cycleBoth(inc, ref, now, fmt.Sprintf("completion %d", k)); err != nil {
			return err
		}
		if inc.tried-tried > uint64(pending/10) {
			if !borrowing {
				t.Fatalf("completion %d: tried %d of %d pending: the walk did not stop early", k, inc.tried-tried, pending)
			}
			// A team borrows: a within-quota task of the tail may reclaim
			// its cheap work at once, so the walk rightly goes on.
			t.Logf("completion %d: a team borrows, the walk went on (%d tried)", k, inc.tried-tried)
		}
		asked += int(inc.stops.wakes - wakes)
		t.Logf("completion %d: tried %d of %d pending, next wake-up %v", k, inc.tried-tried, pending, inc.nextWake.Sub(epoch))
		for _, s := range []*Scheduler{inc, ref} {
			settle(s, now)
		}
	}
	if asked == 0 && !bug {
		t.Fatal("no stop asked for its tail's wake-up: the test does not exercise it")
	}
	return nil
}
