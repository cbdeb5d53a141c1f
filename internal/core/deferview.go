package core

// Deferred tries as views of the teams' lists, not copies (#18).
//
// A walk that stops early keeps the rest of its type's queue as deferred
// tries (stop.go), rendered later at the state of the stop. They used to be
// a copy of the pointers (about 94,000 in the one-input benchmark, where
// every cycle walks the same type again): a copy per cycle of the whole
// stopped tail. A deferred stretch is now a view, a subslice of the team's
// byType list from the popped head on, which renderType reads as it read
// the copy.
//
// A view holds only while nothing writes the part of the list's array it
// covers. Appending (appendSorted, fileNew) writes past the view's end. Two
// writers rewrite a list in place: splitByType (a full sort) and insertTail
// (a task filed in its place). While a view of team tm's list of type i is
// live (tm.viewed[i]), both first give the list a new array (ownList),
// leaving the old one to the view; so a view reads, when it is rendered,
// the tasks a copy made at the deferral would hold, in the same order.
// Dropping a type's deferred tries (dropDeferred: the next walk of the
// type, or the render) ends its views and their teams' marks.
//
// breakViews (test only) leaves the marks unset, so a sort rewrites a
// view's array under it: TestDeferredViewsSurviveResort must see it.

// deferSeg is a stretch of a type's deferred tries, in queue order: a view
// of tm's list (tm set) or tasks of its own (tm nil).
type deferSeg struct {
	tm *team
	q  []*task
}

// deferView appends q, a stretch of tm's list of type i, to type i's
// deferred tries, marking the list as viewed.
func (s *Scheduler) deferView(i int, tm *team, q []*task) {
	if len(q) == 0 {
		return
	}
	st := &s.stops
	if !s.breakViews {
		tm.markViewed(i)
	}
	st.deferred[i] = append(st.deferred[i], deferSeg{tm: tm, q: q[:len(q):len(q)]})
	st.deferredN[i] += len(q)
}

// deferOwn appends t alone to type i's deferred tries.
func (s *Scheduler) deferOwn(i int, t *task) {
	st := &s.stops
	st.deferred[i] = append(st.deferred[i], deferSeg{q: []*task{t}})
	st.deferredN[i]++
}

// dropDeferred drops type i's deferred tries and ends their views.
func (s *Scheduler) dropDeferred(i int) {
	st := &s.stops
	for _, g := range st.deferred[i] {
		if g.tm != nil && i < len(g.tm.viewed) {
			g.tm.viewed[i] = false
		}
	}
	clear(st.deferred[i])
	st.deferred[i] = st.deferred[i][:0]
	st.deferredN[i] = 0
	st.memo[i] = nil
	st.shareStop[i] = false
	st.prefix[i] = prefixRange{}
}

// markViewed records that a deferred view covers tm's list of type i.
func (tm *team) markViewed(i int) {
	if len(tm.viewed) != len(tm.byType) {
		tm.viewed = make([]bool, len(tm.byType))
	}
	tm.viewed[i] = true
}

// isViewed reports whether a deferred view covers tm's list of type i.
func (tm *team) isViewed(i int) bool { return i < len(tm.viewed) && tm.viewed[i] }

// ownList gives tm's list of type i an array of its own, with the same
// entries and room for extra more, when a deferred view covers its
// current one, before a writer rewrites it in place; it reports whether it
// did.
func (tm *team) ownList(i, extra int) bool {
	if !tm.isViewed(i) {
		return false
	}
	q := tm.byType[i]
	n := make([]*task, len(q), len(q)+extra)
	copy(n, q)
	tm.byType[i] = n
	tm.viewed[i] = false
	return true
}
