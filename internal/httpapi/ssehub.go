package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/model"
)

// hub is the one engine subscription behind every event stream. Each event
// is encoded once and appended to the pending batch of two rings: the ring
// of all events (read by callers who read every team) and its team's ring
// (read by that team's members and viewers). A ring's pending batch is
// sealed when its first event has waited the ring's interval, or at once
// when it reaches hubBatchBytes; a stream wakes once per sealed batch and
// writes it whole. So an event costs one encoding and one append, and a
// stream costs one write per batch, whatever the event rate: the cost
// scales with streams × batches, not streams × events.
//
// The interval adapts (the latency contract, docs/SERVER.md): sseFlushEvery
// (100 ms) while a ring is quiet, sseFlushBusy (250 ms) while it is busy,
// i.e. its last batch held at least hubBusyBytes (about 1,200 events a
// second); a batch seals at once at hubBatchBytes (about 1 MB of events a
// second). So under a flood a stream gets about four batches a second, and
// once batches are compressed (ssegzip.go) the number of batches, not
// their bytes, is most of what a stream costs. Issue 14, 1,000 streams
// receiving every event, server CPU per submission against none: ×1.62
// with 100 ms or 32 KiB batches, chunked; ×1.32 with one write per batch
// and 250 ms or 64 KiB; ×1.18 with gzip (docs/BENCHMARKS.md).
//
// Everything a team's ring holds may be read by everyone who reads it, so
// no stream filters: a preemption message that names another team's task
// is written to the team's ring with that name hidden (and in full to the
// ring of all events).
//
// History: a stream first had an engine subscription of its own that
// encoded every event again (500 open streams cut submissions by 90%, issue
// 14, finding 11); then streams read a shared ring of events and copied each
// into their own response.
type hub struct {
	once  sync.Once
	eng   *engine.Engine
	mu    sync.Mutex // guards teams
	all   *ring
	teams map[string]*ring
}

const (
	// sseFlushEvery is the longest an event waits in a quiet ring's pending
	// batch, sseFlushBusy in a busy one's.
	sseFlushEvery = 100 * time.Millisecond
	sseFlushBusy  = 250 * time.Millisecond
	// hubBusyBytes: a ring whose last batch held this much is busy.
	hubBusyBytes = 16 << 10
	// hubBatchBytes seals a pending batch at once (a ring then holds at
	// most hubBatches × 256 KiB).
	hubBatchBytes = 256 << 10
	// hubBatches is how many sealed batches a ring keeps: how far a stream
	// may fall behind before it is told how many events it missed.
	hubBatches = 128
)

// ring is a window of recent sealed batches, and the batch being filled.
type ring struct {
	mu      sync.Mutex
	batches [hubBatches]batch
	next    uint64    // sequence number of the next sealed batch
	events  uint64    // events sealed so far
	pending []byte    // frames not sealed yet
	pendN   int       // events in pending
	due     time.Time // when pending must be sealed; zero while it is empty
	busy    bool      // the last sealed batch held at least hubBusyBytes
	wake    chan struct{}
	// gzipStreams counts the streams reading compressed batches; while
	// there are any, each batch is also compressed as it is sealed.
	gzipStreams atomic.Int32
}

// batch is a run of whole SSE frames, and the same compressed on its own
// (ssegzip.go; nil if no stream wanted it); sealed batches are never
// changed.
type batch struct {
	data, gz []byte
	start    uint64 // events sealed before this batch
}

// cursor is where a stream is: the next batch it reads, and the events
// sealed before that batch.
type cursor struct{ batch, events uint64 }

func newRing() *ring { return &ring{wake: make(chan struct{})} }

// start subscribes the hub to the engine, once.
func (h *hub) start(eng *engine.Engine) {
	h.once.Do(func() {
		h.mu.Lock()
		h.eng, h.all, h.teams = eng, newRing(), map[string]*ring{}
		h.mu.Unlock()
		sub := eng.Subscribe(func(string) bool { return true })
		go h.run(sub)
	})
}

// run encodes each event into the pending batches and seals them on time.
// Events the hub's own subscription lost (it fell a thousand steps behind
// the engine) are announced on every ring, as a stream's own lag is. The
// timer is armed for the earliest due batch.
func (h *hub) run(sub *engine.Subscription) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var armed time.Time // when the timer fires; zero: not armed
	var told int64
	for {
		select {
		case evs, ok := <-sub.C:
			if !ok {
				return
			}
			now := time.Now()
			if lost := sub.Dropped(); lost > told {
				h.announce(fmt.Appendf(nil, ": %d events were dropped: the server fell behind\n\n", lost-told), now)
				told = lost
			}
			for _, ev := range evs {
				h.add(ev, now)
			}
		case now := <-timer.C:
			armed = time.Time{}
			h.sealDue(now)
		}
		if due := h.nextDue(); !due.IsZero() && (armed.IsZero() || due.Before(armed)) {
			timer.Reset(time.Until(due))
			armed = due
		}
	}
}

func frame(ev model.Event) []byte {
	b, _ := json.Marshal(ev)
	return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", ev.Kind, b)
}

// add appends ev to the ring of all events and to its team's ring, hiding
// from the team's ring the name of another team's task a preemption was
// for.
func (h *hub) add(ev model.Event, now time.Time) {
	data, teamData := frame(ev), []byte(nil)
	sameTeam := func(beneficiary string) bool {
		t, err := h.eng.Task(context.Background(), beneficiary)
		return err == nil && t.Team == ev.Team
	}
	if msg := model.HidePreemptor(ev.Message, sameTeam); msg != ev.Message {
		ev.Message = msg
		teamData = frame(ev)
	}
	if teamData == nil {
		teamData = data
	}
	h.all.append(data, now)
	h.teamRing(ev.Team).append(teamData, now)
}

// announce appends a frame to every ring.
func (h *hub) announce(frame []byte, now time.Time) {
	for _, r := range h.rings() {
		r.append(frame, now)
	}
}

// rings is the ring of all events and every team's ring.
func (h *hub) rings() []*ring {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*ring, 0, len(h.teams)+1)
	out = append(out, h.all)
	for _, r := range h.teams {
		out = append(out, r)
	}
	return out
}

// teamRing returns team's ring, made on first use.
func (h *hub) teamRing(team string) *ring {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.teams[team]
	if r == nil {
		r = newRing()
		h.teams[team] = r
	}
	return r
}

// dropTeam forgets a deleted team's ring, so that a team re-created under
// its name starts with a ring of its own. Streams still reading the old
// ring end at their next check (eventStream); an event of the old team
// that was in flight may still land in the new ring.
func (h *hub) dropTeam(team string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.teams, team)
}

// sealDue seals every pending batch due by now.
func (h *hub) sealDue(now time.Time) {
	for _, r := range h.rings() {
		r.mu.Lock()
		if !r.due.IsZero() && !r.due.After(now) {
			r.seal()
		}
		r.mu.Unlock()
	}
}

// nextDue is when the earliest pending batch is due; zero if none is.
func (h *hub) nextDue() time.Time {
	var next time.Time
	for _, r := range h.rings() {
		r.mu.Lock()
		if !r.due.IsZero() && (next.IsZero() || r.due.Before(next)) {
			next = r.due
		}
		r.mu.Unlock()
	}
	return next
}

// ringFor is the ring a caller's stream reads: its one team's, or all.
func (h *hub) ringFor(p principal) *ring {
	if p.readableTeams() == nil {
		return h.all
	}
	return h.teamRing(p.Team)
}

// append adds a frame to the pending batch at time now.
func (r *ring) append(frame []byte, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pendN == 0 {
		r.due = now.Add(sseFlushEvery)
		if r.busy {
			r.due = now.Add(sseFlushBusy)
		}
	}
	r.pending = append(r.pending, frame...)
	r.pendN++
	if len(r.pending) >= hubBatchBytes {
		r.seal()
	}
}

// seal turns the pending frames into a batch and wakes the streams; r.mu
// is held.
func (r *ring) seal() {
	if r.pendN == 0 {
		return
	}
	b := batch{data: r.pending, start: r.events}
	if r.gzipStreams.Load() > 0 {
		b.gz = deflate(b.data)
	}
	r.batches[r.next%hubBatches] = b
	r.next++
	r.events += uint64(r.pendN)
	r.busy = len(r.pending) >= hubBusyBytes
	r.pending, r.pendN, r.due = nil, 0, time.Time{}
	close(r.wake)
	r.wake = make(chan struct{})
}

// head is the cursor of a stream that starts now.
func (r *ring) head() cursor {
	r.mu.Lock()
	defer r.mu.Unlock()
	return cursor{r.next, r.events}
}

// wait returns a channel that is closed once r has batches past c.
func (r *ring) wait(c cursor) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.next > c.batch {
		return closed
	}
	return r.wake
}

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// since appends to dst the batches from c on (compressed if gz) and
// returns them, the next cursor, and how many events were overwritten
// before the stream read them. A stream that reads compressed batches
// counts itself in gzipStreams before it takes its cursor, so every batch
// it reads was compressed when sealed.
func (r *ring) since(dst [][]byte, c cursor, gz bool) ([][]byte, cursor, uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var missed uint64
	if r.next > hubBatches && c.batch < r.next-hubBatches {
		c.batch = r.next - hubBatches
		first := r.batches[c.batch%hubBatches].start
		missed, c.events = first-c.events, first
	}
	for ; c.batch < r.next; c.batch++ {
		b := r.batches[c.batch%hubBatches]
		switch {
		case !gz:
			dst = append(dst, b.data)
		case b.gz != nil:
			dst = append(dst, b.gz)
		default: // sealed before the stream counted itself: not read by it
			dst = append(dst, deflate(b.data))
		}
	}
	c.events = r.events
	return dst, c, missed
}
