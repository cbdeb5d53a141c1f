package httpapi

import (
	"math/rand"
	"net"
	"net/http"
	"testing"
	"time"
)

// fakeConn is a net.Conn that records being closed.
type fakeConn struct {
	net.Conn
	id     int
	closed bool
}

func (c *fakeConn) Close() error { c.closed = true; return nil }

// refTracker is the deliberately simple reference: it scans every
// connection for the one to close.
type refTracker struct {
	max   int
	clock int
	now   func() time.Time
	conns map[net.Conn]refConn
}

type refConn struct {
	state  http.ConnState
	since  int       // the order of state changes
	at     time.Time // when it entered state
	stream bool      // an event stream's request (markStream)
}

func (t *refTracker) hook(c net.Conn, st http.ConnState) (closed net.Conn) {
	t.clock++
	switch st {
	case http.StateNew:
		t.conns[c] = refConn{st, t.clock, t.now(), false}
		if len(t.conns) > t.max {
			var idle, silent, active net.Conn
			idleSince, silentSince, activeSince := 0, 0, 0
			for x, ci := range t.conns {
				old := t.now().Sub(ci.at) >= evictAfter
				switch {
				case x == c:
				case ci.state == http.StateIdle && old && (idle == nil || ci.since < idleSince):
					idle, idleSince = x, ci.since
				case ci.state == http.StateActive && !ci.stream && old && (active == nil || ci.since < activeSince):
					active, activeSince = x, ci.since
				case ci.state == http.StateNew && (silent == nil || ci.since < silentSince):
					silent, silentSince = x, ci.since
				}
			}
			closed = c
			switch {
			case silent != nil:
				closed = silent
			case idle != nil:
				closed = idle
			case active != nil:
				closed = active
			}
			delete(t.conns, closed)
		}
	case http.StateActive, http.StateIdle:
		if ci, ok := t.conns[c]; ok {
			ci.state, ci.since, ci.at, ci.stream = st, t.clock, t.now(), false
			t.conns[c] = ci
		}
	case http.StateClosed, http.StateHijacked:
		delete(t.conns, c)
	}
	return closed
}

func (t *refTracker) markStream(c net.Conn) {
	if ci, ok := t.conns[c]; ok && ci.state == http.StateActive {
		ci.stream = true
		t.conns[c] = ci
	}
}

// TestConnTrackerMatchesReference: on random sequences of connection
// states, the list-based tracker closes the same connection as a scan for
// the oldest silent, else the longest idle of those idle evictAfter, else
// the oldest request in progress (not a stream) begun evictAfter ago, else
// the new one; the clock moves 0 to 1.5 s a step.
func TestConnTrackerMatchesReference(t *testing.T) {
	for seed := int64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewSource(seed))
		max := 1 + rng.Intn(8)
		now := time.Unix(1700000000, 0)
		clock := func() time.Time { return now }
		got := &connTracker{max: max, conns: map[net.Conn]*connInfo{}, now: clock}
		ref := &refTracker{max: max, now: clock, conns: map[net.Conn]refConn{}}
		var open []*fakeConn
		for step, next := 0, 0; step < 300; step++ {
			now = now.Add(time.Duration(rng.Intn(1500)) * time.Millisecond)
			var c *fakeConn
			var st http.ConnState
			if len(open) == 0 || rng.Intn(3) == 0 {
				next++
				c, st = &fakeConn{id: next}, http.StateNew
				open = append(open, c)
			} else if rng.Intn(6) == 0 { // an active one becomes a stream
				i := rng.Intn(len(open))
				ref.markStream(open[i])
				got.stream(open[i])
				continue
			} else {
				i := rng.Intn(len(open))
				c, st = open[i], []http.ConnState{http.StateActive, http.StateIdle, http.StateIdle, http.StateClosed, http.StateHijacked}[rng.Intn(5)]
				if st == http.StateClosed || st == http.StateHijacked {
					open = append(open[:i], open[i+1:]...)
				}
			}
			want := ref.hook(c, st)
			got.hook(c, st)
			var closed *fakeConn
			for i, o := range open {
				if o.closed {
					closed = o
					open = append(open[:i], open[i+1:]...)
					break
				}
			}
			switch {
			case want == nil && closed != nil:
				t.Fatalf("seed %d step %d: closed conn %d, the reference closed none", seed, step, closed.id)
			case want != nil && (closed == nil || want.(*fakeConn) != closed):
				t.Fatalf("seed %d step %d: closed %v, the reference %d", seed, step, closed, want.(*fakeConn).id)
			}
			if len(got.conns) != len(ref.conns) || got.idle.Len()+got.silent.Len()+got.active.Len() > len(got.conns) {
				t.Fatalf("seed %d step %d: %d tracked (%d idle, %d silent), reference %d", seed, step,
					len(got.conns), got.idle.Len(), got.silent.Len(), len(ref.conns))
			}
		}
	}
}

// TestSilentFloodSparesKeepAlive: over the cap, connections that never sent
// a request are closed before a client's idle keep-alive connection.
func TestSilentFloodSparesKeepAlive(t *testing.T) {
	tr := &connTracker{max: 10, conns: map[net.Conn]*connInfo{}, now: time.Now}
	client := &fakeConn{id: 0}
	tr.hook(client, http.StateNew)
	tr.hook(client, http.StateActive)
	tr.hook(client, http.StateIdle)
	var flood []*fakeConn
	for i := 1; i <= 100; i++ {
		c := &fakeConn{id: i}
		flood = append(flood, c)
		tr.hook(c, http.StateNew)
	}
	if client.closed {
		t.Fatal("a flood of silent connections closed a client's keep-alive connection")
	}
	open := 0
	for _, c := range flood {
		if !c.closed {
			open++
		}
	}
	if open != 9 || flood[99].closed {
		t.Fatalf("%d flood connections open (want 9, the newest kept)", open)
	}
}

// TestSlowBodyFloodSparesBusyKeepAlive: over the cap, with every other
// connection in a request (a flood of slow bodies), a client's keep-alive
// connection that went idle less than evictAfter ago is kept, and so is
// an event stream; a new connection is closed while every request is
// younger than evictAfter, and after that closes the oldest slow request.
func TestSlowBodyFloodSparesBusyKeepAlive(t *testing.T) {
	now := time.Unix(1700000000, 0)
	tr := &connTracker{max: 10, conns: map[net.Conn]*connInfo{}, now: func() time.Time { return now }}
	client := &fakeConn{id: 0}
	tr.hook(client, http.StateNew)
	tr.hook(client, http.StateActive)
	tr.hook(client, http.StateIdle)
	stream := &fakeConn{id: -1}
	tr.hook(stream, http.StateNew)
	tr.hook(stream, http.StateActive)
	tr.stream(stream)
	var slow []*fakeConn
	for i := 1; i <= 100; i++ {
		c := &fakeConn{id: i}
		tr.hook(c, http.StateNew)
		if !c.closed {
			tr.hook(c, http.StateActive) // its headers came; its body trickles
			slow = append(slow, c)
		}
		if i > 8 && !c.closed {
			t.Fatalf("slow connection %d was let in over the cap", i)
		}
		now = now.Add(5 * time.Millisecond)
	}
	if client.closed || stream.closed {
		t.Fatalf("a flood of slow requests closed a keep-alive connection idle for 0.5 s (%v) or a stream (%v)", client.closed, stream.closed)
	}
	now = now.Add(evictAfter)
	probe := &fakeConn{id: 101}
	tr.hook(probe, http.StateNew)
	if !client.closed || probe.closed {
		t.Fatalf("a connection idle past evictAfter: client closed %v, new one closed %v", client.closed, probe.closed)
	}
	tr.hook(probe, http.StateActive) // it is served
	tr.hook(probe, http.StateIdle)
	probe2 := &fakeConn{id: 102}
	tr.hook(probe2, http.StateNew)
	if !slow[0].closed || probe2.closed || stream.closed || probe.closed {
		t.Fatalf("with no idle one left, the oldest slow request (closed %v) makes room, the stream stays (closed %v); new one closed %v",
			slow[0].closed, stream.closed, probe2.closed)
	}
}
