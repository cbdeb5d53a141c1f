package sim

import (
	"sort"
	"testing"
)

// TestNodesMixKeepsItsQueue: the property BenchmarkReplayBacklog relies on.
// With a backlog queued at time 0 and arrivals at 110%, the whole-node mix
// keeps at least the backlog pending at the median of the run (the queue
// follows the backlog of work), while the default mix's small jobs pass
// the queue and leave less than half of it.
func TestNodesMixKeepsItsQueue(t *testing.T) {
	const jobs, backlog = 2000, 200
	median := func(mix string) int {
		c, trace := Generate(GenOptions{Seed: 1, Teams: 4, Jobs: jobs, GPUs: 1000, Load: 1.1, Backlog: backlog, Mix: mix})
		r, err := Run(trace, Options{Cluster: c, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var p []int
		for _, s := range r.Timeline {
			p = append(p, s.Pending)
		}
		sort.Ints(p)
		return p[len(p)/2]
	}
	nodes, all := median(MixNodes), median(MixAll)
	t.Logf("median pending: whole-node mix %d, default mix %d (backlog %d)", nodes, all, backlog)
	if nodes < backlog {
		t.Errorf("whole-node mix: median %d pending, want at least the backlog of %d", nodes, backlog)
	}
	if all >= backlog/2 {
		t.Errorf("default mix: median %d pending; its small jobs should pass the queue (under %d)", all, backlog/2)
	}
}
