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
// mode the bound also asks the team's quota to hold without its own
// candidates, which is what a guaranteed victim search needs.
func TestRoomBoundIsNecessary(t *testing.T) {
	pruned, checked := 0, 0
	for seed := int64(300); seed < 340; seed++ {
		randomRunKeep(t, seed, 600, func(s *Scheduler, now time.Time) {
			s.now = now
			s.cc.startCycle(len(s.types))
			s.cc.noRoom = nil
			for _, tk := range s.sortedTasks() {
				if tk.state != pending {
					continue
				}
				for k, mode := range []preemptMode{modeGuaranteed, modeGuaranteed, modeOwnPriority, modeFairShare} {
					cands, _ := s.candidates(tk, mode, k == 1)
					cands = append([]victim(nil), cands...)
					scopes := []*domain{nil}
					if tk.reqLevel >= 0 && tk.typ.topo.labeled > 0 {
						scopes = append(scopes, tk.typ.topo.levels[tk.reqLevel]...)
					}
					for _, d := range scopes {
						checked++
						if s.roomBound(tk, cands, d, mode) {
							continue
						}
						pruned++
						for _, v := range cands {
							s.unassign(v.t)
						}
						s.cc.only = d
						nodes, _ := s.place(tk, true)
						s.cc.only = nil
						if mode == modeGuaranteed && !tk.team.usage[tk.typ.idx].Add(tk.total).LessEq(tk.team.quota[tk.typ.idx]) {
							nodes = nil // over quota even without its candidates: the quota part held
						}
						for k := len(cands) - 1; k >= 0; k-- {
							s.reassign(cands[k].t)
						}
						if nodes != nil {
							t.Fatalf("seed %d: task %s mode %d: roomBound said no room, but it places on %v without its %d candidates",
								seed, tk.spec.Name, mode, nodes, len(cands))
						}
					}
				}
			}
			if err := s.CheckInvariants(); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		})
	}
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
	for seed := int64(400); seed < 430; seed++ {
		randomRunKeep(t, seed, 600, func(s *Scheduler, now time.Time) {
			s.now = now
			s.cc.startCycle(len(s.types))
			s.cc.noRoom = nil
			for _, tk := range s.sortedTasks() {
				if tk.state != pending {
					continue
				}
				for k, mode := range []preemptMode{modeGuaranteed, modeGuaranteed, modeOwnPriority, modeFairShare} {
					cands, _ := s.candidates(tk, mode, k == 1)
					cands = append([]victim(nil), cands...)
					feasible := func() bool {
						v := s.checkQuota(tk.team, tk.typ.idx, tk.total)
						if !v.ok || (mode == modeGuaranteed && !v.inQuota) {
							return false
						}
						nodes, _ := s.place(tk, false)
						return nodes != nil
					}
					for _, v := range cands {
						s.unassign(v.t)
					}
					want := feasible()
					for j := len(cands) - 1; j >= 0; j-- {
						s.reassign(cands[j].t)
					}
					got := s.enoughWithout(cands, feasible)
					checked++
					if got {
						yes++
					}
					if got != want {
						t.Fatalf("seed %d: task %s mode %d: enoughWithout %v, unassigning every candidate %v", seed, tk.spec.Name, mode, got, want)
					}
					if err := s.CheckInvariants(); err != nil {
						t.Fatalf("seed %d: after enoughWithout: %v", seed, err)
					}
				}
			}
		})
	}
	t.Logf("%d of %d checks found the candidates enough", yes, checked)
	if yes == 0 || yes == checked {
		t.Fatal("the checks never differ: the test does not exercise both answers")
	}
}
