package core

// Reusing a walk's deferred list (stop.go) without clearing it first.
//
// A walk of a type that stopped early keeps the rest of the queue as
// deferred tries, a copy of its pointers (deferTail): about 94,000 in the
// one-input benchmark, where every cycle walks the same type again, drops
// the list and builds it anew. Dropping cleared the whole array (so that
// it holds no task the core has forgotten), and the new list then
// overwrote the same entries: two passes over the array per cycle. Now a
// walk's start only truncates the list and remembers how far the array
// was filled (deferHigh); at the walk's end, trimDeferred clears what the
// new list did not overwrite. Between cycles, as before, the array holds no
// pointer beyond the list.

// reuseDeferred drops type i's deferred tries for a walk that writes its
// own, leaving their array to be overwritten.
func (s *Scheduler) reuseDeferred(i int) {
	if len(s.deferHigh) != len(s.types) {
		s.deferHigh = make([]int, len(s.types))
	}
	d := s.stops.deferred[i]
	s.deferHigh[i] = max(s.deferHigh[i], len(d))
	s.stops.deferred[i] = d[:0]
	s.stops.memo[i] = nil
	s.stops.shareStop[i] = false // as dropDeferred
	s.stops.prefix[i] = prefixRange{}
}

// trimDeferred clears, for every type, the part of its deferred list's
// array the cycle did not write again.
func (s *Scheduler) trimDeferred() {
	for i, hi := range s.deferHigh {
		d := s.stops.deferred[i]
		if hi > len(d) {
			clear(d[len(d):hi])
		}
		s.deferHigh[i] = 0
	}
}
