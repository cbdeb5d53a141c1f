package core

import (
	"math/rand"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// Node selectors in the differential test. With withSelectors set,
// randomTask gives a third of the tasks a node selector on selLabel, half
// the nodes start with the label, and about one step in eight moves it on
// or off a node (SetNodeLabels), so every branch of the incremental core
// that reads a selector (the stop's proofs in stopwake.go, stophold.go,
// stoprank.go, stopfair.go and stopskip.go, the failed-search memo, holds
// whose matching nodes go) meets the full rescan. Off, the draws are those
// the seeds of the other random tests were written for.
var withSelectors bool

const selLabel = "sagemaker.amazonaws.com/deep-health-check-status"

// labelSome labels about half the nodes.
func labelSome(r *rand.Rand, p diffPair, nodes []model.Node) error {
	for _, n := range nodes {
		if r.Intn(2) == 0 {
			if err := setSel(p, n, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// relabel puts the label on, or takes it off, one node.
func relabel(r *rand.Rand, p diffPair, nodes []model.Node) error {
	return setSel(p, nodes[r.Intn(len(nodes))], r.Intn(2) == 0)
}

func setSel(p diffPair, n model.Node, on bool) error {
	labels := map[string]string{}
	for k, v := range n.Labels {
		labels[k] = v
	}
	if on {
		labels[selLabel] = "Passed"
	}
	return p.both(func(s *Scheduler) error { _, e := s.SetNodeLabels(n.Name, labels); return e })
}

// TestIncrementalMatchesFullRescanSelectors is the differential test with
// node selectors and labels that move (see withSelectors).
func TestIncrementalMatchesFullRescanSelectors(t *testing.T) {
	withSelectors = true
	defer func() { withSelectors = false }()
	seeds, ops := envInt("TASKGOV_DIFF_SEEDS", 15), envInt("TASKGOV_DIFF_OPS", 2000)
	if testing.Short() {
		seeds, ops = 4, 500
	}
	before, stops := stats.selTails, stats.stopped
	for seed := 1; seed <= seeds; seed++ {
		if err := differentialRun(int64(2000+seed), ops, ""); err != nil {
			t.Fatal(err)
		}
	}
	n := stats.selTails - before
	t.Logf("%d walks stopped early with a task that selects nodes in their tail (%d stops in all)", n, stats.stopped-stops)
	if n < seeds {
		t.Fatalf("only %d early stops had a selecting task in their tail: the test would not exercise the stop's selector cases", n)
	}
}

// selectorTails counts the types whose walk stopped early in the cycle just
// run while a pending task of the type selects nodes.
func selectorTails(s *Scheduler) int {
	n := 0
	for i := range s.stops.cycle {
		if s.stops.cycle[i] != s.cycle || !s.stops.stopped[i] {
			continue
		}
	teams:
		for _, tm := range s.teams {
			if i >= len(tm.byType) {
				continue
			}
			for _, t := range tm.byType[i] {
				if t.state == pending && t.sel != "" {
					n++
					break teams
				}
			}
		}
	}
	return n
}
