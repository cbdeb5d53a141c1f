package httpapi

import (
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
	// limit). A connection beyond it closes the longest-idle one, or the
	// oldest that has not sent a request yet; failing both, itself.
	MaxConns int
}

// DefaultConnLimits are the server's defaults. Write covers one response;
// event streams set their own deadline per write.
var DefaultConnLimits = ConnLimits{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 60 * time.Second,
	Idle: 30 * time.Second, MaxConns: 10000}

// Harden sets srv's timeouts and connection cap from l.
func Harden(srv *http.Server, l ConnLimits) {
	srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout = l.ReadHeader, l.Read, l.Write, l.Idle
	srv.MaxHeaderBytes = 64 << 10
	max := l.MaxConns
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil && rl.Cur > 128 && uint64(max) > rl.Cur-64 {
		max = int(rl.Cur - 64) // keep descriptors for the database, logs and tasks
	}
	if max <= 0 {
		return
	}
	t := &connTracker{max: max, conns: map[net.Conn]*connInfo{}}
	prev := srv.ConnState
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		t.hook(c, st)
		if prev != nil {
			prev(c, st)
		}
	}
}

type connInfo struct {
	state http.ConnState
	since time.Time
}

// connTracker keeps the state of every open connection.
type connTracker struct {
	mu    sync.Mutex
	max   int
	conns map[net.Conn]*connInfo
}

func (t *connTracker) hook(c net.Conn, st http.ConnState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch st {
	case http.StateNew:
		t.conns[c] = &connInfo{state: st, since: time.Now()}
		if len(t.conns) > t.max {
			victim := t.victim(c)
			delete(t.conns, victim)
			_ = victim.Close()
		}
	case http.StateActive, http.StateIdle:
		if ci := t.conns[c]; ci != nil {
			ci.state, ci.since = st, time.Now()
		}
	case http.StateHijacked, http.StateClosed:
		delete(t.conns, c)
	}
}

// victim picks the connection to close for a new one: the longest idle,
// else the oldest that has sent nothing, else the new one itself.
func (t *connTracker) victim(fresh net.Conn) net.Conn {
	var idle, silent net.Conn
	var idleSince, silentSince time.Time
	for c, ci := range t.conns {
		switch {
		case c == fresh:
		case ci.state == http.StateIdle && (idle == nil || ci.since.Before(idleSince)):
			idle, idleSince = c, ci.since
		case ci.state == http.StateNew && (silent == nil || ci.since.Before(silentSince)):
			silent, silentSince = c, ci.since
		}
	}
	switch {
	case idle != nil:
		return idle
	case silent != nil:
		return silent
	}
	return fresh
}
