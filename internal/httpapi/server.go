package httpapi

import (
	"context"
	_ "embed"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/devices"
	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/ui"
)

//go:embed openapi.json
var openAPI []byte

// Server is the HTTP API.
type Server struct {
	eng     *engine.Engine
	st      Store // the engine's store, for reads beside it
	log     *slog.Logger
	tokens  authCache
	mux     *http.ServeMux
	ready   func() bool
	metrics http.Handler
	devices *devices.Sampler
	dcgm    *dcgmSource // measured GPU use on Kubernetes; nil: nvidia-smi
	// taskList is the task pages' in-memory copy of the task list, for
	// the columns the store does not sort by; summaries, the Tasks page's
	// figures.
	taskList  taskCache
	summaries summaryCache

	// canRun is the executor's answer to whether it can run a task's
	// command or image (executor.RunChecker); nil: every valid one.
	canRun func(model.TaskSpec) error

	limits  Limits
	rate    rateLimiter
	streams streamCounter
	hub     hub
	// keepalive is about the longest a stream stays silent, and half of it
	// how often streams re-check their caller (sseKeepalive); streamWrite
	// how long one write round of a stream may take (sseWriteTimeout).
	// Tests shorten them.
	keepalive, streamWrite time.Duration
}

// WithRunCheck makes submissions ask check whether this server's executor
// can run the task (executor.RunChecker's CheckRun); a refusal is the
// submission's 400, and nothing is stored.
func (s *Server) WithRunCheck(check func(model.TaskSpec) error) *Server {
	s.canRun = check
	return s
}

// WithMetrics serves h at GET /metrics to admins and cluster-wide viewers.
func (s *Server) WithMetrics(h http.Handler) *Server {
	s.metrics = h
	return s
}

func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request, p principal) error {
	if s.metrics == nil {
		return &apiError{Status: http.StatusNotFound, Code: "not_found", Message: "metrics are not enabled on this server"}
	}
	if p.readableTeams() != nil {
		return errForbidden
	}
	s.metrics.ServeHTTP(w, r)
	return nil
}

// New returns the API handler. ready reports whether the server can take
// traffic (for /readyz).
func New(eng *engine.Engine, log *slog.Logger, ready func() bool) *Server {
	s := &Server{eng: eng, st: eng.Store().(Store), log: log, mux: http.NewServeMux(), ready: ready, devices: &devices.Sampler{}, limits: DefaultLimits, keepalive: sseKeepalive,
		streamWrite: sseWriteTimeout}
	s.routes()
	s.taskList.watch(eng)
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w.Header())
	s.mux.ServeHTTP(w, r)
}

// handler is an authenticated endpoint; returned errors go to writeError.
type handler func(w http.ResponseWriter, r *http.Request, p principal) error

func (s *Server) routes() {
	// /healthz is liveness: 200 while the process serves (a restart cures
	// no full disk), its status "ok" only while the engine runs and writes
	// succeed, else "degraded" with /readyz's reason.
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if h := s.eng.Health(); !h.Ready {
			writeJSON(w, 200, map[string]string{"status": "degraded", "reason": h.Reason})
			return
		}
		writeJSON(w, 200, map[string]string{"status": "ok"})
	})
	s.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !s.ready() {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready"})
			return
		}
		if h := s.eng.Health(); !h.Ready { // the engine runs and the store takes writes
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready", "reason": h.Reason})
			return
		}
		writeJSON(w, 200, map[string]string{"status": "ready"})
	})
	s.mux.Handle("GET /ui/", ui.Handler("/ui/"))
	s.mux.Handle("GET /favicon.ico", ui.Favicon())
	s.mux.HandleFunc("GET /ui", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ui/", http.StatusFound) })
	s.mux.HandleFunc("GET /api/v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(openAPI)
	})
	for _, rt := range s.apiRoutes() {
		s.handle(rt.pattern, rt.h)
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, s.log, &apiError{Status: http.StatusNotFound, Code: "not_found",
			Message: "no such endpoint: " + r.Method + " " + r.URL.Path, Fix: "see /api/v1/openapi.json"})
	})
}

// route is one authenticated endpoint.
type route struct {
	pattern string
	h       handler
}

// apiRoutes is the table of authenticated endpoints; openapi.json must
// describe each (a test checks).
func (s *Server) apiRoutes() []route {
	return []route{
		{"POST /api/v1/tasks", s.submitTask},
		{"GET /api/v1/tasks", s.listTasks},
		{"GET /api/v1/tasks/{name}", s.getTask},
		{"DELETE /api/v1/tasks/{name}", s.deleteTask},
		{"POST /api/v1/tasks/{name}/{action}", s.taskAction},
		{"GET /api/v1/tasks/{name}/events", s.taskEvents},
		{"GET /api/v1/tasks/{name}/logs", s.taskLogs},
		{"GET /api/v1/queue", s.queue},
		{"GET /api/v1/whoami", s.whoami},
		{"GET /api/v1/events", s.eventStream},
		{"GET /api/v1/teams", s.listTeams},
		{"PUT /api/v1/teams/{name}", s.putTeam},
		{"DELETE /api/v1/teams/{name}", s.deleteTeam},
		{"GET /api/v1/usage", s.usage},
		{"GET /api/v1/usage/report", s.usageReport},
		{"GET /api/v1/trends", s.trendsView},
		{"GET /api/v1/devices", s.deviceUse},
		{"POST /api/v1/preview", s.preview},
		{"GET /api/v1/policy", s.getPolicy},
		{"PUT /api/v1/policy", s.putPolicy},
		{"GET /api/v1/nodes", s.listNodes},
		{"POST /api/v1/nodes/{name}/{action}", s.nodeAction},
		{"GET /api/v1/topology", s.topology},
		{"GET /api/v1/cluster", s.getCluster},
		{"POST /api/v1/tokens", s.createToken},
		{"GET /api/v1/tokens", s.listTokens},
		{"DELETE /api/v1/tokens/{id}", s.revokeToken},
		{"GET /api/v1/audit", s.auditLog},
		{"GET /api/v1/preemptions", s.listPreemptions},
		{"GET /metrics", s.serveMetrics},
	}
}

func (s *Server) handle(pattern string, h handler) {
	method, _, _ := strings.Cut(pattern, " ")
	mutating := method != http.MethodGet
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		p, err := s.authenticate(r.Context(), r)
		if err != nil {
			writeError(w, s.log, err)
			return
		}
		if !p.admin() {
			if ok, wait := s.rate.allow(p.ID, s.limits.RatePerToken, s.limits.Burst); !ok {
				err = tooMany("this token sent too many requests", "slow down: each token may send "+
					strconv.FormatFloat(s.limits.RatePerToken, 'f', -1, 64)+" requests per second", wait)
			}
		}
		if err == nil {
			err = checkQuery(pattern, r)
		}
		if err == nil {
			err = h(w, r, p)
		}
		if err == nil {
			return
		}
		ae := toAPIError(s.log, err)
		if mutating && !errors.As(err, new(audited)) && !engine.Audited(err) {
			// Every refused mutating call is audited, the 404 of another
			// team's task and a 429 included.
			// Its own deadline: the request's may be what ended it, and
			// then the answer is due (Harden), so the wait is short.
			within := refusalAuditWithin
			if r.Context().Err() != nil {
				within = lateRefusalAuditWithin
			}
			actx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), within)
			s.eng.Audit(actx, p.ID, auditAction(pattern, r), auditTarget(r), "refused: "+ae.Code)
			cancel()
		}
		writeAPIError(w, ae)
	})
}

// refusalAuditWithin bounds the wait to audit a refused change;
// lateRefusalAuditWithin, once the request's own deadline has passed.
const refusalAuditWithin, lateRefusalAuditWithin = 5 * time.Second, time.Second

// audited marks an error whose call is already in the audit log.
type audited struct{ error }

func (a audited) Unwrap() error { return a.error }

// forbid records a refused mutating call in the audit log and returns 403.
func (s *Server) forbid(r *http.Request, p principal, action, target string) error {
	s.eng.Audit(r.Context(), p.ID, action, target, "forbidden")
	return audited{errForbidden}
}

// auditAction names a mutating call as the audit log does elsewhere:
// task.cancel, team.delete, node.cordon, token.create.
func auditAction(pattern string, r *http.Request) string {
	method, path, _ := strings.Cut(pattern, " ")
	parts := strings.Split(strings.TrimPrefix(path, "/api/v1/"), "/")
	kind := strings.TrimSuffix(parts[0], "s")
	if a := r.PathValue("action"); a != "" {
		return kind + "." + a
	}
	switch {
	case method == http.MethodDelete && kind == "token":
		return "token.revoke"
	case method == http.MethodDelete:
		return kind + ".delete"
	case method == http.MethodPut:
		return kind + ".set"
	case kind == "task":
		return "task.submit"
	}
	return kind + ".create"
}

func auditTarget(r *http.Request) string {
	for _, k := range []string{"name", "id"} {
		if v := r.PathValue(k); v != "" {
			if len(v) > 253 {
				v = v[:253]
			}
			return v
		}
	}
	return ""
}
