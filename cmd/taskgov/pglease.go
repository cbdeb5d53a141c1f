package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taskgov/taskgov/internal/postgres"
)

// pgElector runs leader election on the PostgreSQL lease row (used with
// --store postgres://, on Kubernetes or not: the fence must live where the
// commits are). Timing, with L the lease duration:
//   - the leader renews every L/6; each renewal is stamped with the local
//     time it was sent, and the leader counts itself leader only until that
//     time + 2L/3 (the watchdog). The database sets the expiry to its own
//     now + L when it runs the renewal, which is later, so the leader stops
//     acting at least L/3 before any standby can take over;
//   - a standby tries to take the lease every L/10, and gets it once the
//     database's clock passes the expiry: failover within about L + L/10
//     of the leader's last renewal, plus recovery.
//
// Until it leads, a replica is a standby and serves like the Kubernetes
// elector: /healthz, a 503 /readyz, and every other call forwarded to the
// leader named in the lease.
type pgElector struct {
	st   *postgres.Store
	self string
	ttl  time.Duration
	log  *slog.Logger

	deposed atomic.Bool   // set the moment this replica stops leading
	stop    chan struct{} // ends renewing (release)
	term    atomic.Int64

	mu     sync.Mutex
	leader string
	proxy  *httputil.ReverseProxy
}

var errLeaseLost = errors.New("lost the leader lease in PostgreSQL: stopped acting so that only the new leader decides (restart to stand by)")

func newPGElector(st *postgres.Store, self string, ttl time.Duration, log *slog.Logger) *pgElector {
	return &pgElector{st: st, self: self, ttl: ttl, log: log, stop: make(chan struct{})}
}

// waitLeading stands by until this replica takes the lease, fences the
// store with its term, and returns a context that ends when it stops leading
// (or when ctx ends).
func (e *pgElector) waitLeading(ctx context.Context) (context.Context, error) {
	e.log.Info("standing by for the leader lease in PostgreSQL", "self", e.self, "lease", e.ttl)
	for {
		if l, err := e.st.Lease(ctx); err == nil && l.Valid {
			e.setLeader(l.Holder)
		}
		sent := time.Now()
		term, ok, err := e.st.Acquire(ctx, e.self, e.ttl)
		if err != nil && ctx.Err() == nil {
			e.log.Warn("taking the leader lease failed", "err", err)
		}
		if ok {
			e.st.Fence(term)
			e.term.Store(term)
			lead, cancel := context.WithCancelCause(ctx)
			go e.renew(cancel, term, sent)
			e.setLeader(e.self)
			e.log.Info("became the leader", "self", e.self, "term", term)
			return lead, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(max(e.ttl/10, 50*time.Millisecond)):
		}
	}
}

// renew keeps the lease until release, or until a renewal is refused or
// none succeeds within 2L/3 of the last good one's sending: then the
// replica is deposed at once.
func (e *pgElector) renew(cancel context.CancelCauseFunc, term int64, sent time.Time) {
	valid := e.ttl * 2 / 3
	lose := func(why string, err error) {
		if e.deposed.CompareAndSwap(false, true) {
			e.log.Error("no longer the leader", "why", why, "term", term, "err", err)
			cancel(errLeaseLost)
		}
	}
	deadline := sent.Add(valid)
	watchdog := time.AfterFunc(time.Until(deadline), func() { lose("no renewal succeeded in time", nil) })
	defer watchdog.Stop()
	tick := time.NewTicker(e.ttl / 6)
	defer tick.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-tick.C:
		}
		if e.deposed.Load() {
			return
		}
		sent := time.Now()
		ctx, done := context.WithDeadline(context.Background(), deadline)
		ok, err := e.st.Renew(ctx, term, e.ttl)
		done()
		switch {
		case err != nil:
			e.log.Warn("renewing the leader lease failed", "err", err)
		case !ok:
			lose("another replica took the lease", nil)
			return
		default:
			deadline = sent.Add(valid)
			watchdog.Reset(time.Until(deadline))
		}
	}
}

// leading reports whether this replica may act (start or stop pods).
func (e *pgElector) leading() bool { return e.term.Load() > 0 && !e.deposed.Load() }

// release ends the lease after a clean stop, so that a standby takes over
// at once.
func (e *pgElector) release() {
	close(e.stop)
	if term := e.term.Load(); term > 0 && !e.deposed.Load() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := e.st.Release(ctx, term); err != nil {
			e.log.Warn("releasing the leader lease failed; a standby takes over when it expires", "err", err)
		}
	}
}

func (e *pgElector) setLeader(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if id == e.leader {
		return
	}
	e.leader, e.proxy = id, proxyTo(id, e.self, e.log)
}

// ServeHTTP is the standby's API.
func (e *pgElector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	leader, proxy := e.leader, e.proxy
	e.mu.Unlock()
	serveStandby(w, r, leader, proxy, "a replica takes the lease within --leader-elect-lease-duration")
}
