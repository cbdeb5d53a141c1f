package httpapi

import (
	_ "embed"
	"log/slog"
	"net/http"

	"github.com/taskgov/taskgov/internal/devices"
	"github.com/taskgov/taskgov/internal/engine"
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
	s := &Server{eng: eng, st: eng.Store().(Store), log: log, mux: http.NewServeMux(), ready: ready, devices: &devices.Sampler{}}
	s.routes()
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// handler is an authenticated endpoint; returned errors go to writeError.
type handler func(w http.ResponseWriter, r *http.Request, p principal) error

func (s *Server) routes() {
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, map[string]string{"status": "ok"}) })
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
		{"GET /metrics", s.serveMetrics},
	}
}

func (s *Server) handle(pattern string, h handler) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		p, err := s.authenticate(r.Context(), r)
		if err != nil {
			writeError(w, s.log, err)
			return
		}
		if err := h(w, r, p); err != nil {
			writeError(w, s.log, err)
		}
	})
}

// forbid records a refused mutating call in the audit log and returns 403.
func (s *Server) forbid(r *http.Request, p principal, action, target string) error {
	s.eng.Audit(r.Context(), p.ID, action, target, "forbidden")
	return errForbidden
}
