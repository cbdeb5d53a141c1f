package httpapi

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/model"
)

// Ring sizes: how many recent events a stream may fall behind by before it
// is told how many it missed. One ring holds every event (for callers who
// read all teams), and one per team holds that team's.
const (
	hubSize     = 8192
	hubTeamSize = 1024
)

// hub is the one engine subscription behind every event stream. Each event
// is encoded once, into rings of recent events; a stream reads the ring of
// the team its caller reads (or the ring of all events), from its own
// cursor, and is woken only by events of that ring. Before it, a stream was
// a subscription of its own that encoded every event again: 500 open
// streams cut submissions by 90% (issue 14, finding 11).
type hub struct {
	once  sync.Once
	mu    sync.Mutex
	all   *ring
	teams map[string]*ring
}

// ring is a window of recent events.
type ring struct {
	buf  []hubEvent
	next uint64        // sequence number of the next event
	wake chan struct{} // closed when an event arrives, then replaced
}

type hubEvent struct {
	team string
	data []byte // the whole SSE frame
	// For a preemption: the task it made room for, and the frame with that
	// name hidden, for streams whose caller may not see it.
	beneficiary string
	redacted    []byte
}

func newRing(n int) *ring { return &ring{buf: make([]hubEvent, n), wake: make(chan struct{})} }

// start subscribes the hub to the engine, once.
func (h *hub) start(eng *engine.Engine) {
	h.once.Do(func() {
		h.mu.Lock()
		h.all, h.teams = newRing(hubSize), map[string]*ring{}
		h.mu.Unlock()
		sub := eng.Subscribe(func(string) bool { return true })
		go func() {
			frame := func(ev model.Event) []byte {
				b, _ := json.Marshal(ev)
				return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", ev.Kind, b)
			}
			for ev := range sub.C {
				he := hubEvent{team: ev.Team, data: frame(ev)}
				if m := preemptedFor.FindStringSubmatchIndex(ev.Message); m != nil {
					he.beneficiary = ev.Message[m[4]:m[5]]
					ev.Message = ev.Message[:m[4]] + otherTeamsTask + ev.Message[m[5]:]
					he.redacted = frame(ev)
				}
				h.add(he)
			}
		}()
	})
}

func (h *hub) add(ev hubEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.all.add(ev)
	t := h.teams[ev.team]
	if t == nil {
		t = newRing(hubTeamSize)
		h.teams[ev.team] = t
	}
	t.add(ev)
}

func (r *ring) add(ev hubEvent) {
	r.buf[r.next%uint64(len(r.buf))] = ev
	r.next++
	close(r.wake)
	r.wake = make(chan struct{})
}

// ringFor is the ring a caller's stream reads: its one team's, or all.
func (h *hub) ringFor(p principal) *ring {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p.readableTeams() == nil {
		return h.all
	}
	r := h.teams[p.Team]
	if r == nil {
		r = newRing(hubTeamSize)
		h.teams[p.Team] = r
	}
	return r
}

// head is the cursor of a stream that starts now.
func (h *hub) head(r *ring) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return r.next
}

// wait returns a channel that is closed once r has events past cursor.
func (h *hub) wait(r *ring, cursor uint64) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.next > cursor {
		c := make(chan struct{})
		close(c)
		return c
	}
	return r.wake
}

// since returns r's events from cursor on, the next cursor, and how many
// events were overwritten before the stream read them.
func (h *hub) since(r *ring, cursor uint64) (evs []hubEvent, next uint64, missed uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	size := uint64(len(r.buf))
	if r.next > size && cursor < r.next-size {
		missed = r.next - size - cursor
		cursor = r.next - size
	}
	for c := cursor; c < r.next; c++ {
		evs = append(evs, r.buf[c%size])
	}
	return evs, r.next, missed
}
