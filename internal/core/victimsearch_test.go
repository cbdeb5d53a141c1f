package core

import (
	"testing"
	"time"
)

// TestRoomBoundIsNecessary: whenever roomBound says a gang cannot have room
// even with every candidate gone, removing every candidate indeed leaves no
// placement, for the whole type and for each domain of the required level.
// The bound only prunes victim searches; it must never prune one that could
// succeed. It must also prune some, or it is not exercised. In guaranteed
// mode quotaWithout joins it: the team's quota must hold without its own
// candidates, which is what a guaranteed victim search needs.
func TestRoomBoundIsNecessary(t *testing.T) {
	pruned, checked := 0, 0
	eachSearch(t, seedRange(300, 340), func(s *Scheduler, tk *task, mode preemptMode, cands []victim) {
		scopes := []*domain{nil}
		if tk.reqLevel >= 0 && tk.typ.topo.labeled > 0 {
			scopes = append(scopes, tk.typ.topo.levels[tk.reqLevel]...)
		}
		for _, d := range scopes {
			checked++
			bound := s.roomBound(tk, cands, d)
			if mode == modeGuaranteed {
				bound = bound && s.quotaWithout(tk, cands)
			}
			if bound {
				continue
			}
			pruned++
			for _, v := range cands {
				s.unassign(v.t)
			}
			nodes, _ := s.place(tk, placeMode{ignoreHolds: true, only: d})
			if mode == modeGuaranteed && !tk.team.usage[tk.typ.idx].Add(tk.total).LessEq(tk.team.quota[tk.typ.idx]) {
				nodes = nil // over quota even without its candidates: the quota part held
			}
			for k := len(cands) - 1; k >= 0; k-- {
				s.reassign(cands[k].t)
			}
			if nodes != nil {
				t.Fatalf("task %s mode %d: roomBound said no room, but it places on %v without its %d candidates",
					tk.spec.Name, mode, nodes, len(cands))
			}
		}
	})
	t.Logf("%d of %d checks pruned", pruned, checked)
	if pruned == 0 {
		t.Fatal("roomBound never pruned: the test does not exercise it")
	}
}

// TestEnoughWithoutMatchesUnassign: the light check that every candidate gone
// would be enough answers exactly as unassigning them all does, for the
// victim search's own feasibility test, and leaves the state as it found it.
func TestEnoughWithoutMatchesUnassign(t *testing.T) {
	yes, checked := 0, 0
	eachSearch(t, seedRange(400, 430), func(s *Scheduler, tk *task, mode preemptMode, cands []victim) {
		feasible := func() bool {
			v := s.checkQuota(tk.team, tk.typ.idx, tk.total)
			if !v.ok || (mode == modeGuaranteed && !v.inQuota) {
				return false
			}
			nodes, _ := s.place(tk, placeMode{})
			return nodes != nil
		}
		// The mode's candidates, and (so that "enough" comes up often) every
		// task running on the type.
		var all []victim
		for _, tm := range s.teams {
			for _, v := range tm.run[tk.typ.idx] {
				all = append(all, victim{t: v})
			}
		}
		for _, set := range [][]victim{cands, all} {
			for _, v := range set {
				s.unassign(v.t)
			}
			want := feasible()
			for j := len(set) - 1; j >= 0; j-- {
				s.reassign(set[j].t)
			}
			got := s.enoughWithout(set, feasible)
			checked++
			if got {
				yes++
			}
			if got != want {
				t.Fatalf("task %s mode %d: enoughWithout %v, unassigning all %d %v", tk.spec.Name, mode, got, len(set), want)
			}
			if err := s.CheckInvariants(); err != nil {
				t.Fatalf("after enoughWithout: %v", err)
			}
		}
	})
	t.Logf("%d of %d checks found the candidates enough", yes, checked)
	if yes == 0 || yes == checked {
		t.Fatal("the checks never differ: the test does not exercise both answers")
	}
}

// eachSearch calls check for every pending task and preemption mode at the end of random runs of
// the given seeds, with the candidates that search would consider.
func eachSearch(t *testing.T, seeds []int64, check func(s *Scheduler, tk *task, mode preemptMode, cands []victim)) {
	t.Helper()
	for _, seed := range seeds {
		randomRunKeep(t, seed, 600, func(s *Scheduler, now time.Time) {
			s.now = now
			s.cc.startCycle(len(s.types))
			s.cc.noRoom = nil
			for _, tk := range s.sortedTasks() {
				if tk.state != pending {
					continue
				}
				for _, mode := range []preemptMode{modeGuaranteed, modeBorrow} {
					cands := s.candidates(tk, mode)
					check(s, tk, mode, append([]victim(nil), cands...))
				}
			}
			if err := s.CheckInvariants(); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		})
	}
}

func seedRange(from, to int64) []int64 {
	var out []int64
	for s := from; s < to; s++ {
		out = append(out, s)
	}
	return out
}
