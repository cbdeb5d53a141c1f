package engine

import (
	"sync/atomic"

	"github.com/taskgov/taskgov/internal/model"
)

// Subscription receives task events as they are committed, one slice per
// committed step (a cycle may emit thousands at once; a slice per step
// keeps them together). A slow reader loses whole steps rather than
// slowing the engine: Dropped counts the events it lost, so a reader can
// tell its own readers. Slices are shared between subscribers: read only.
type Subscription struct {
	C       chan []model.Event
	allow   func(team string) bool
	dropped atomic.Int64
}

// subscriptionSteps is how many committed steps a subscriber may fall
// behind before it loses events.
const subscriptionSteps = 1024

// Dropped is how many events this subscription has lost so far.
func (s *Subscription) Dropped() int64 { return s.dropped.Load() }

// Subscribe returns a subscription to events of the teams allow accepts.
func (e *Engine) Subscribe(allow func(team string) bool) *Subscription {
	s := &Subscription{C: make(chan []model.Event, subscriptionSteps), allow: allow}
	e.mu.Lock()
	e.subs[s] = struct{}{}
	e.mu.Unlock()
	return s
}

// Unsubscribe ends a subscription.
func (e *Engine) Unsubscribe(s *Subscription) {
	e.mu.Lock()
	delete(e.subs, s)
	e.mu.Unlock()
}

func (e *Engine) publish(evs []model.Event) {
	if len(evs) == 0 {
		return
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	for s := range e.subs {
		mine := evs
		for i, ev := range evs {
			if !s.allow(ev.Team) {
				mine = filterEvents(evs, i, s.allow)
				break
			}
		}
		if len(mine) == 0 {
			continue
		}
		select {
		case s.C <- mine:
		default:
			s.dropped.Add(int64(len(mine)))
		}
	}
}

// filterEvents is evs with the events from index i on that allow refuses
// left out (evs[i] is the first refused), in a new slice.
func filterEvents(evs []model.Event, i int, allow func(string) bool) []model.Event {
	out := append(make([]model.Event, 0, len(evs)), evs[:i]...)
	for _, ev := range evs[i+1:] {
		if allow(ev.Team) {
			out = append(out, ev)
		}
	}
	return out
}
