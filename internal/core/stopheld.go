package core

// The no-admission bound with a hold in place (stop.go, stophold.go).
//
// The check's no-admission bound counts, for a tail task t, the schedulable
// nodes whose free room reaches t's bucket (place's count check): a node
// held for the type's holder H counts too. In a queue past its starvation
// bound H holds nodes while they drain, and the nodes that free up one by
// one are held ones: the bound then finds room for the next tail task of
// every team while no task but H may use it, and the walk goes on (at
// 10,000 jobs of the deep-backlog replay, 40,355 of the 170,206 checks that
// this bound held back).
//
// When H's hold stands through the rest of the walk (holdStands: H was
// tried in this walk and still holds, or H's try keeps its hold; any other
// tail try leaves it as it is: stophold.go), every node held for H stays
// held for H while the walk goes on, and place puts a task t other than H
// on such a node only where spareOnHeld allows (usable). So place cannot
// give t its gang when fewer than t's gang size of the nodes that reach
// t's bucket are not held for another task or are spare for t: heldRefuses
// counts those, task by task, as mayAdmit counts them all. For H itself
// nothing is left out (its own nodes are usable to it), so the bound for
// H is mayAdmit's. A check for a holder that will drop its hold
// (holddrop.go: stopCheck.dropping) uses mayAdmit's bound alone, as the
// nodes are free for everyone after the drop; so does a type without a
// holder (nothing held). So the hold jumps (holdjump.go, holddrop.go),
// whose argument needs a bound that reads no hold, get mayAdmit's.
//
// The scan keeps its place as mayAdmit's does (admitScan), and also while
// no hold is taken or dropped (holdChanges): an admission only lowers a
// node's bucket and raises what a held node's spare room has taken
// (afterHold), so a node left out stays out and the count only falls.
// breakHeldOwn (test only) leaves out H's own nodes for H too, the
// injected bug TestDifferentialCatchesBrokenHeldCount must catch: H, which
// may start on the nodes it held, no longer holds the stop back.

// heldRefuses reports whether no task of tm's tail in type i passes its
// quota check and the count of the nodes that reach its bucket and that
// place may use with the type's holds in place (see above).
func (s *Scheduler) heldRefuses(tm *team, i int) bool {
	it := s.types[i]
	ix := &it.index
	st := &s.stops
	if len(st.heldScans[i]) != len(s.teams) {
		st.heldScans[i] = make([]admitScan, len(s.teams))
	}
	sc := &st.heldScans[i][tm.idx]
	from := max(tm.cursors[i]-1, 0)
	if sc.freed != st.freed+1 || sc.holds != s.holdChanges {
		*sc = admitScan{freed: st.freed + 1, holds: s.holdChanges, pos: from}
	}
	q := tm.byType[i]
	for sc.pos = max(sc.pos, from); sc.pos < len(q); sc.pos++ {
		t := q[sc.pos]
		if t.state != pending {
			continue
		}
		k := keyFor(t)
		if k >= len(ix.counts) || !s.checkQuota(tm, i, t.total).ok {
			continue
		}
		n := ix.atLeast(k)
		for _, ni := range it.held {
			nd := s.nodes[ni]
			if h := nd.heldFor; h != nil && (h != t || s.breakHeldOwn) && int(ix.key[nd.pos]) >= k && !spareOnHeld(nd, t) {
				n--
			}
		}
		if n >= t.spec.Nodes {
			return false
		}
	}
	return true
}
