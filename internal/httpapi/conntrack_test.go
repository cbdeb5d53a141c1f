package httpapi

import (
	"math/rand"
	"net"
	"net/http"
	"testing"
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
	conns map[net.Conn]struct {
		state http.ConnState
		since int
	}
}

func (t *refTracker) hook(c net.Conn, st http.ConnState) (closed net.Conn) {
	t.clock++
	switch st {
	case http.StateNew:
		t.conns[c] = struct {
			state http.ConnState
			since int
		}{st, t.clock}
		if len(t.conns) > t.max {
			var idle, silent net.Conn
			idleSince, silentSince := 0, 0
			for x, ci := range t.conns {
				switch {
				case x == c:
				case ci.state == http.StateIdle && (idle == nil || ci.since < idleSince):
					idle, idleSince = x, ci.since
				case ci.state == http.StateNew && (silent == nil || ci.since < silentSince):
					silent, silentSince = x, ci.since
				}
			}
			closed = c
			if silent != nil {
				closed = silent
			} else if idle != nil {
				closed = idle
			}
			delete(t.conns, closed)
		}
	case http.StateActive, http.StateIdle:
		if ci, ok := t.conns[c]; ok {
			ci.state, ci.since = st, t.clock
			t.conns[c] = ci
		}
	case http.StateClosed, http.StateHijacked:
		delete(t.conns, c)
	}
	return closed
}

// TestConnTrackerMatchesReference: on random sequences of connection
// states, the list-based tracker closes the same connection as a scan for
// the oldest silent, else the longest idle, else the new one.
func TestConnTrackerMatchesReference(t *testing.T) {
	for seed := int64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewSource(seed))
		max := 1 + rng.Intn(8)
		got := &connTracker{max: max, conns: map[net.Conn]*connInfo{}}
		ref := &refTracker{max: max, conns: map[net.Conn]struct {
			state http.ConnState
			since int
		}{}}
		var open []*fakeConn
		for step, next := 0, 0; step < 300; step++ {
			var c *fakeConn
			var st http.ConnState
			if len(open) == 0 || rng.Intn(3) == 0 {
				next++
				c, st = &fakeConn{id: next}, http.StateNew
				open = append(open, c)
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
			if len(got.conns) != len(ref.conns) || got.idle.Len()+got.silent.Len() > len(got.conns) {
				t.Fatalf("seed %d step %d: %d tracked (%d idle, %d silent), reference %d", seed, step,
					len(got.conns), got.idle.Len(), got.silent.Len(), len(ref.conns))
			}
		}
	}
}

// TestSilentFloodSparesKeepAlive: over the cap, connections that never sent
// a request are closed before a client's idle keep-alive connection.
func TestSilentFloodSparesKeepAlive(t *testing.T) {
	tr := &connTracker{max: 10, conns: map[net.Conn]*connInfo{}}
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
