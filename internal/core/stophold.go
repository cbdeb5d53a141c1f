package core

// The early stop with a hold in place.
//
// A queue that has waited past its starvation bound (rule 8) has a holder:
// one task holds nodes of the type while they drain (hold.go). The stop
// (stop.go) used to refuse any type with a holder, and any team whose queue
// has an in-quota task past its due, because such a task's try may take a
// hold. After a completion in a queue that old, the team left below its
// quota has such tasks, the first one tried takes the hold, and the walk
// then tried the whole type.
//
// The exact conditions. Let H be the type's holder at the check. A hold
// changes only in reserve and releaseHold, and a tail try of a task t other
// than H reaches them only in these ways (tryTask):
//   - releaseHold(t) (backing off, no nodes, too few matching nodes, quota
//     refused) and admit's releaseHold(t): t holds nothing, so nothing is
//     released (admission itself is bounded by the rest of the check).
//   - reserve(t), reached by an in-quota task past its due that neither
//     places nor preempts: t holds nothing and the type has a holder, so
//     reserve returns false and changes nothing; the try records
//     QueuedForHold (naming H). A task past its due asks for no wake-up, so
//     tailDue leaves it out.
// If H itself is in the tail (not yet tried in this walk: noteTried), its
// try keeps its hold exactly when it is not released on the way and H does
// not start: H does not back off (the check wants no task of H's team
// backing off), the type has schedulable nodes, H's node selector matches
// enough of them, and H's quota check passes (holderKeeps checks these
// three at the check's state S); then H places (it would start: bounded by
// mayAdmit, as H is in its team's tail) or preempts (bounded by the search
// bounds of H's team), or it reaches the hold, where reserve returns true
// (Draining), or it borrows and keeps its hold with a reason.
//
// The other bounds of the check do not depend on holds: the no-admission
// bound counts every schedulable node whose free bucket reaches the
// smallest key (place, respecting holds and a held node's spare room,
// spareOnHeld, which also needs the node's free room, uses no more), or,
// task by task, those of them not held for another task, which stay so
// while the hold stands (stopheld.go); the
// search bounds count nodes the same way (roomBound, cheapReach), and a
// failed search restores the state exactly. So with a holder that keeps its
// hold, a team's due having passed no longer blocks the check, and the tail
// leaves the hold as it is. Without a holder, a tail task past its due may
// take a hold: a team with one refuses, as before. A hold taken or dropped
// in the walk is a change (afterTry): the next check asks again.
//
// renderType's tries of such a tail (stop.go) reach reserve, not the
// rendering guard in tryTask (which is for a type without a holder): others
// record QueuedForHold, H records Draining. The holder at the render is H,
// since any change of the hold marks the type, which drops the deferred
// tries; a render that changed a hold counts in renderHits.
//
// breakStopHold (test only) lets the check pass with an untried holder whose
// quota check fails (its try drops the hold): TestDifferentialCatchesBrokenStopHold
// and TestStopWithAHoldInPlace must see it.

// noteTried records, after a walk's try of t, that t holds nodes of its
// type and was tried.
func (s *Scheduler) noteTried(t *task) {
	if t.holds() {
		s.stops.holderTried[t.typ.idx] = t
	}
}

// holdStands reports whether the holder of type i, if any, keeps its hold
// through its own try in the rest of the walk (see above); the other tail
// tries cannot move it.
func (s *Scheduler) holdStands(i int) bool {
	h := s.types[i].holder
	return h == nil || h == s.stops.holderTried[i] || s.holderKeeps(h)
}

// holderKeeps reports whether h's try at the current state passes the
// checks that would release its hold short of placing it: nodes, node
// selector, quota.
func (s *Scheduler) holderKeeps(h *task) bool {
	it := h.typ
	if it.index.atLeast(0) == 0 || (h.sel != "" && s.matchingNodes(h) < h.spec.Nodes) {
		return false
	}
	return s.checkQuota(h.team, it.idx, h.total).ok || s.breakStopHold
}

// holdDue reports whether a tail task of type i past its starvation due
// may take a hold: only when the type has no holder.
func (s *Scheduler) holdDue(i int) bool {
	return s.types[i].holder == nil
}
