package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// leaderOptions are the --leader-elect flags.
type leaderOptions struct {
	enabled   bool
	namespace string
	lease     time.Duration
}

// LeaseName is the coordination.k8s.io Lease the replicas compete for.
const LeaseName = "taskgov"

// advertiseURL is where the other replicas reach this one: --advertise-url,
// else the listening address (the host name when it listens on all).
func (o serverOptions) advertiseURL(addr net.Addr) string {
	if o.advertise != "" {
		return strings.TrimRight(o.advertise, "/")
	}
	scheme := "http"
	if o.tlsCert != "" {
		scheme = "https"
	}
	host, port, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host, _ = os.Hostname()
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// elector runs leader election on a Lease whose holder identity is the
// holder's advertise URL. Until this replica leads it serves as a standby:
// /healthz answers, /readyz says it is not ready (so a Service sends traffic
// to the leader only), and every other request is forwarded to the leader.
type elector struct {
	self    string
	log     *slog.Logger
	elector *leaderelection.LeaderElector
	leading chan context.Context

	mu     sync.Mutex
	leader string
	proxy  *httputil.ReverseProxy
}

func newElector(client kubernetes.Interface, lo leaderOptions, self string, log *slog.Logger) (*elector, error) {
	ns := lo.namespace
	if ns == "" {
		ns = "taskgov-system"
		if b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
			ns = strings.TrimSpace(string(b))
		}
	}
	if lo.lease < 3*time.Second {
		return nil, fmt.Errorf("--leader-elect-lease-duration %s is too short: use 3s or more (15s is the default)", lo.lease)
	}
	e := &elector{self: self, log: log, leading: make(chan context.Context, 1)}
	lock := &resourcelock.LeaseLock{LeaseMeta: metav1.ObjectMeta{Name: LeaseName, Namespace: ns},
		Client: client.CoordinationV1(), LockConfig: resourcelock.ResourceLockConfig{Identity: self}}
	var err error
	e.elector, err = leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, Name: LeaseName, ReleaseOnCancel: true,
		// Renewal must fail well before the Lease expires, so that an old
		// leader has stopped deciding before a new one starts.
		LeaseDuration: lo.lease, RenewDeadline: lo.lease * 2 / 3, RetryPeriod: lo.lease / 7,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { e.leading <- ctx },
			OnStoppedLeading: func() { log.Warn("no longer the leader", "self", self) },
			OnNewLeader:      e.setLeader,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("leader election on Lease %s/%s: %w", ns, LeaseName, err)
	}
	return e, nil
}

// waitLeading runs the election until this replica leads, and returns a
// context that ends when it stops leading (or when ctx ends).
func (e *elector) waitLeading(ctx context.Context) (context.Context, error) {
	e.log.Info("standing by for the leader Lease", "self", e.self)
	go e.elector.Run(ctx)
	select {
	case lead := <-e.leading:
		e.log.Info("became the leader", "self", e.self)
		return lead, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (e *elector) setLeader(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.leader, e.proxy = id, proxyTo(id, e.self, e.log)
}

// proxyTo forwards a standby's API calls to the leader whose identity (its
// advertise URL) is id; nil when this replica, self, is the leader, when
// none is known, or when id is not a URL (logged).
func proxyTo(id, self string, log *slog.Logger) *httputil.ReverseProxy {
	if id == self || id == "" {
		return nil
	}
	u, err := url.Parse(id)
	if err != nil || u.Scheme == "" || u.Host == "" {
		log.Warn("the leader's identity is not a URL; API calls here cannot be forwarded", "leader", id)
		return nil
	}
	log.Info("following the leader", "leader", id)
	p := httputil.NewSingleHostReverseProxy(u)
	p.ErrorHandler = forwardFailed(id, log)
	return p
}

// ServeHTTP is the standby's API.
func (e *elector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	leader, proxy := e.leader, e.proxy
	e.mu.Unlock()
	serveStandby(w, r, leader, proxy, "a replica takes the Lease within --leader-elect-lease-duration")
}

// serveStandby answers for a standby: health, not ready, and every other
// call forwarded to the leader (proxy nil: none known yet).
func serveStandby(w http.ResponseWriter, r *http.Request, leader string, proxy *httputil.ReverseProxy, when string) {
	switch {
	case r.URL.Path == "/healthz":
		standbyJSON(w, http.StatusOK, map[string]string{"status": "ok", "role": "standby", "leader": leader})
	case r.URL.Path == "/readyz":
		standbyJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "standby", "leader": leader})
	case proxy != nil:
		w.Header().Set("X-Taskgov-Forwarded-To", leader)
		proxy.ServeHTTP(w, r)
	default:
		standbyJSON(w, http.StatusServiceUnavailable, map[string]map[string]string{"error": {"code": "no_leader",
			"message": "this replica is a standby and no leader is known yet",
			"fix":     "retry in a few seconds; " + when}})
	}
}

func standbyJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
