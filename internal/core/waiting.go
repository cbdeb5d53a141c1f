package core

import "github.com/taskgov/taskgov/internal/model"

// The waiting list: every pending task's place in its team's queue and why
// it waits. Building it walks every pending task, so a cycle that tried one
// task would cost the whole queue if it built the list. With lazy waiting
// (SetLazyWaiting), a cycle leaves Decision.Waiting nil and the caller asks
// Waiting when it needs the list: once per cycle at most, and only when
// someone reads it (the engine, on the first queue read after a cycle).

// SetLazyWaiting makes Schedule leave Decision.Waiting nil (on) instead of
// listing every pending task in each decision (off, the default). Waiting
// then gives the same list on demand.
func (s *Scheduler) SetLazyWaiting(on bool) { s.lazyWaiting = on }

// Waiting lists every pending task, team by team in queue order, with its
// position and the reason its last evaluation recorded: what the last
// cycle's Decision.Waiting holds without lazy waiting. It is built at most
// once per cycle (later calls return the same slice, which callers must not
// change). Between a cycle and the next input it only reads the core, so
// concurrent callers are safe when the caller serialises the first build.
func (s *Scheduler) Waiting() []model.Waiting {
	if s.waitBuilt != s.cycle || s.lastWaiting == nil {
		s.renderDeferred()
		s.lastWaiting = s.collectWaiting()
		s.waitBuilt = s.cycle
	}
	return s.lastWaiting
}

// Pending is the number of pending tasks, in O(teams).
func (s *Scheduler) Pending() int {
	n := 0
	for _, tm := range s.teams {
		sortQueue(tm)
		n += len(tm.pending) - tm.stale
	}
	return n
}

// endWaiting fills d.Waiting, or, with lazy waiting, only sorts the queues
// so that Waiting and Pending read them without changing them.
func (s *Scheduler) endWaiting(d *model.Decision) {
	if s.lazyWaiting {
		for _, tm := range s.teams {
			sortQueue(tm)
		}
		s.lastWaiting = nil
		return
	}
	s.renderDeferred()
	d.Waiting = s.collectWaiting()
	s.lastWaiting = d.Waiting
	s.waitBuilt = s.cycle
}
