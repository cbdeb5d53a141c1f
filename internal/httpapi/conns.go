package httpapi

import (
	"container/list"
	"context"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// ConnLimits bound what connections may hold: how long a request may take
// to arrive (headers, then the whole body), how long a response may take to
// write, how long an idle keep-alive connection stays, and how many
// connections are open at once.
type ConnLimits struct {
	ReadHeader, Read, Write, Idle time.Duration
	// MaxConns caps open connections (clamped below the process's file
	// limit). A connection beyond it closes the oldest that has not sent a
	// request yet, else the longest-idle one if idle evictAfter, else the
	// one whose request (not an event stream) began longest ago, if
	// evictAfter ago; failing all three, itself.
	MaxConns int
}

// DefaultConnLimits are the server's defaults. Write covers one response;
// event streams set their own deadline per write.
var DefaultConnLimits = ConnLimits{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 60 * time.Second,
	Idle: 30 * time.Second, MaxConns: 10000}

// Harden sets srv's timeouts and connection cap from l. A change (any
// method but GET and HEAD) has until three quarters of Write to be answered:
// its context ends then, and a change the engine has queued but not
// confirmed is answered 503 "may have been stored" (engine.ErrUnconfirmed)
// rather than cut off unanswered by the write deadline.
func Harden(srv *http.Server, l ConnLimits) {
	srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout = l.ReadHeader, l.Read, l.Write, l.Idle
	if l.Write > 0 && srv.Handler != nil {
		srv.Handler = answerChangesWithin(srv.Handler, l.Write*3/4)
	}
	srv.MaxHeaderBytes = 64 << 10
	max := l.MaxConns
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil && rl.Cur > 128 && uint64(max) > rl.Cur-64 {
		max = int(rl.Cur - 64) // keep descriptors for the database, logs and tasks
	}
	if max <= 0 {
		return
	}
	t := &connTracker{max: max, conns: map[net.Conn]*connInfo{}, now: time.Now}
	prevCtx := srv.ConnContext
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if prevCtx != nil {
			ctx = prevCtx(ctx, c)
		}
		return context.WithValue(ctx, streamMarkKey{}, func() { t.stream(c) })
	}
	prev := srv.ConnState
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		t.hook(c, st)
		if prev != nil {
			prev(c, st)
		}
	}
}

// connInfo is one open connection: its state, and its element in the list
// of connections in that state (idle or new), oldest first.
type connInfo struct {
	state http.ConnState
	elem  *list.Element
	since time.Time // when it entered state
}

// evictAfter is how long a keep-alive connection must have been idle, or a
// request in progress, before a new connection over the cap may close it.
// A client that sends its next request on a keep-alive connection as it is
// closed gets EOF for a request the server never read (a POST is not
// retried): under 10,000 slow request bodies, which are in progress, not
// idle, the clients' busy keep-alive connections were the only ones closed,
// and the load tool's own submissions failed. A request still arriving
// after a second is the slow one to close (a flood of slow bodies is cut
// oldest first, so new clients and probes get in), but never an event
// stream (markStream), whose request lasts by design.
const evictAfter = time.Second

// streamMarkKey is the request context key of the function that exempts
// the request's connection from eviction (markStream).
type streamMarkKey struct{}

// markStream exempts r's connection from eviction over the cap while it
// lasts: an event stream, not a slow request.
func markStream(r *http.Request) {
	if mark, ok := r.Context().Value(streamMarkKey{}).(func()); ok {
		mark()
	}
}

// connTracker keeps the state of every open connection. Each state change
// is O(1), and so is choosing the connection to close: idle connections and
// those that have sent nothing are kept in lists, oldest first (before, a
// new connection over the cap scanned them all, so a flood of reconnects at
// the cap cost O(connections) each).
type connTracker struct {
	mu    sync.Mutex
	max   int
	conns map[net.Conn]*connInfo
	// idle, silent and active (in a request, not a stream) connections, each
	// list in the order they entered the state.
	idle, silent, active list.List // of net.Conn
	now                  func() time.Time
}

func (t *connTracker) hook(c net.Conn, st http.ConnState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ci := t.conns[c]
	if ci != nil && ci.elem != nil {
		t.listOf(ci.state).Remove(ci.elem)
		ci.elem = nil
	}
	switch st {
	case http.StateNew:
		ci = &connInfo{state: st, elem: t.silent.PushBack(c), since: t.now()}
		t.conns[c] = ci
		if len(t.conns) > t.max {
			victim := t.victim(c)
			t.forget(victim)
			_ = victim.Close()
		}
	case http.StateActive, http.StateIdle:
		if ci != nil {
			ci.state, ci.since = st, t.now()
			ci.elem = t.listOf(st).PushBack(c)
		}
	case http.StateHijacked, http.StateClosed:
		delete(t.conns, c)
	}
}

func (t *connTracker) listOf(st http.ConnState) *list.List {
	switch st {
	case http.StateIdle:
		return &t.idle
	case http.StateActive:
		return &t.active
	}
	return &t.silent
}

// stream takes c off the active list until its next state change: its
// request is an event stream.
func (t *connTracker) stream(c net.Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ci := t.conns[c]; ci != nil && ci.elem != nil && ci.state == http.StateActive {
		t.active.Remove(ci.elem)
		ci.elem = nil
	}
}

// forget drops c from the tracker.
func (t *connTracker) forget(c net.Conn) {
	if ci := t.conns[c]; ci != nil && ci.elem != nil {
		t.listOf(ci.state).Remove(ci.elem)
	}
	delete(t.conns, c)
}

// victim picks the connection to close for a new one: the oldest that has
// sent nothing, else the longest idle if idle evictAfter, else the oldest
// request in progress (not a stream) if begun evictAfter ago, else the new
// one itself. Silent
// ones go first: a client that sent a request has shown it is one, and a
// flood of connections that send nothing must not cost clients their
// keep-alive connections (with idle ones first, a flood at the cap closed
// the load tool's own keep-alive connections under its requests).
func (t *connTracker) victim(fresh net.Conn) net.Conn {
	if e := t.silent.Front(); e != nil && e.Value.(net.Conn) != fresh {
		return e.Value.(net.Conn)
	}
	for _, l := range []*list.List{&t.idle, &t.active} {
		if e := l.Front(); e != nil && t.now().Sub(t.conns[e.Value.(net.Conn)].since) >= evictAfter {
			return e.Value.(net.Conn)
		}
	}
	return fresh
}

// answerChangesWithin gives each change request a context that ends after d.
func answerChangesWithin(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			h.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}
