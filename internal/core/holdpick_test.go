package core

import (
	"sort"
	"testing"
	"time"
)

// TestHoldPickMatchesSort: on the states random runs leave (busy nodes,
// holds, cordons, failures), holdPick lists, for every pending task and
// every gang size, the nodes reserve held before it used the index: the
// schedulable unheld nodes matching the task's selector, stably sorted by
// free room, descending.
func TestHoldPickMatchesSort(t *testing.T) {
	compared := 0
	for seed := int64(1); seed <= 6; seed++ {
		randomRunKeep(t, seed, 400, func(s *Scheduler, _ time.Time) {
			for _, tk := range s.sortedTasks() {
				if tk.state != pending {
					continue
				}
				it := tk.typ
				var want []*node
				for _, ni := range it.nodes {
					n := s.nodes[ni]
					if n.schedulable && n.heldFor == nil && (tk.sel == "" || selects(n, tk)) {
						want = append(want, n)
					}
				}
				sort.SliceStable(want, func(a, b int) bool { return it.primary(want[a].free) > it.primary(want[b].free) })
				for need := 1; need <= len(it.nodes)+1; need++ {
					got := s.holdPick(it, tk, need)
					if need > len(want) {
						if got != nil {
							t.Fatalf("seed %d %s, %d nodes: picked %d of %d candidates", seed, tk.spec.Name, need, len(got), len(want))
						}
						continue
					}
					for k := range got {
						if got[k] != want[k] {
							t.Fatalf("seed %d %s, %d nodes: pick %d is %s, the sort's %s", seed, tk.spec.Name, need, k, got[k].spec.Name, want[k].spec.Name)
						}
					}
					if len(got) != need {
						t.Fatalf("seed %d %s: picked %d of %d", seed, tk.spec.Name, len(got), need)
					}
					compared++
				}
			}
		})
	}
	if compared < 100 {
		t.Fatalf("only %d picks compared", compared)
	}
	t.Logf("%d picks compared", compared)
}
