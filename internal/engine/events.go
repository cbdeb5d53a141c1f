package engine

import "github.com/taskgov/taskgov/internal/model"

// Subscription receives task events as they are committed. A slow reader
// loses events rather than slowing the engine; Dropped counts them.
type Subscription struct {
	C       chan model.Event
	allow   func(team string) bool
	Dropped int
}

// Subscribe returns a subscription to events of the teams allow accepts.
func (e *Engine) Subscribe(allow func(team string) bool) *Subscription {
	s := &Subscription{C: make(chan model.Event, 256), allow: allow}
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
		for _, ev := range evs {
			if !s.allow(ev.Team) {
				continue
			}
			select {
			case s.C <- ev:
			default:
				s.Dropped++
			}
		}
	}
}
