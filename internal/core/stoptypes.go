package core

// Other types during a walk, for the tries the stop's check makes ahead
// (stoptrial.go).
//
// A try reads its own type's state, and under FairShare the weighted
// shares, which sum a team's borrowing over every type (share). A try made
// ahead is the try of the full walk only if nothing it reads moves before
// the task's turn. Within its type the check sees to that; another type
// moves only by its own walk's changes (the limits are enforced before the
// walks), and a walk changes state only by trying a head: a type with no
// head left in the heap, or whose walk has stopped, changes nothing more in
// this cycle. live counts each type's heads in the heap (pushNext pushes,
// the loop pops, settleRest removes a settled type's), and the check makes
// tries ahead only while no other type of the cycle is live and not
// stopped. The catalogue's other types are usually empty: the simulator's
// traces use one type of the 23, and an input that marks every type walks
// them all with no head.
//
// After the cycle. An input that moves a share before the next cycle is
// seen by shareMoved at that cycle's start, which marks the type (its
// deferred tries are then dropped and tried again in its walk). A later
// cycle that does not walk the type but walks another may move shares
// during that walk, before a render reads them; so such a cycle first
// renders the deferred tries of every type whose stop relied on tries made
// ahead (shareStop), at the state of the stop, before any head is tried
// (renderShareStops). Neither case is reached by the random differential
// runs (they pass with either guard removed): both are kept as the
// argument requires, not as tested.

// otherTypesMove reports whether a type other than i may still change
// something in this cycle's walk: it has heads in the heap and has not
// stopped.
func (s *Scheduler) otherTypesMove(i int) bool {
	st := &s.stops
	for _, j := range s.workList {
		if j != i && st.live[j] > 0 && !st.stopped[j] {
			return true
		}
	}
	return false
}

// renderShareStops renders, before the walk tries a head, the deferred
// tries of the types not walked in this cycle whose stop relied on the
// other types standing still, when another type has heads to try.
func (s *Scheduler) renderShareStops() {
	st := &s.stops
	live := false
	for _, j := range s.workList {
		live = live || st.live[j] > 0
	}
	if !live {
		return
	}
	for i, on := range st.shareStop {
		if on && !s.work[i] && len(st.deferred[i]) > 0 {
			s.renderType(i)
		}
	}
}
