package httpapi

import (
	_ "embed"
	"log/slog"
	"net/http"

	"github.com/taskgov/taskgov/internal/engine"
)

//go:embed openapi.json
var openAPI []byte

// Server is the HTTP API.
type Server struct {
	eng    *engine.Engine
	log    *slog.Logger
	tokens authCache
	mux    *http.ServeMux
	ready  func() bool
}

// New returns the API handler. ready reports whether the server can take
// traffic (for /readyz).
func New(eng *engine.Engine, log *slog.Logger, ready func() bool) *Server {
	s := &Server{eng: eng, log: log, mux: http.NewServeMux(), ready: ready}
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
		writeJSON(w, 200, map[string]string{"status": "ready"})
	})
	s.mux.HandleFunc("GET /api/v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(openAPI)
	})
	s.handle("POST /api/v1/tasks", s.submitTask)
	s.handle("GET /api/v1/tasks", s.listTasks)
	s.handle("GET /api/v1/tasks/{name}", s.getTask)
	s.handle("POST /api/v1/tasks/{name}/{action}", s.taskAction)
	s.handle("GET /api/v1/tasks/{name}/events", s.taskEvents)
	s.handle("GET /api/v1/tasks/{name}/logs", s.taskLogs)
	s.handle("GET /api/v1/queue", s.queue)
	s.handle("GET /api/v1/events", s.eventStream)
	s.handle("GET /api/v1/teams", s.listTeams)
	s.handle("PUT /api/v1/teams/{name}", s.putTeam)
	s.handle("DELETE /api/v1/teams/{name}", s.deleteTeam)
	s.handle("GET /api/v1/usage", s.usage)
	s.handle("GET /api/v1/policy", s.getPolicy)
	s.handle("PUT /api/v1/policy", s.putPolicy)
	s.handle("GET /api/v1/nodes", s.listNodes)
	s.handle("POST /api/v1/nodes/{name}/{action}", s.nodeAction)
	s.handle("GET /api/v1/topology", s.topology)
	s.handle("POST /api/v1/tokens", s.createToken)
	s.handle("GET /api/v1/tokens", s.listTokens)
	s.handle("DELETE /api/v1/tokens/{id}", s.revokeToken)
	s.handle("GET /api/v1/audit", s.auditLog)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, s.log, &apiError{Status: http.StatusNotFound, Code: "not_found",
			Message: "no such endpoint: " + r.Method + " " + r.URL.Path, Fix: "see /api/v1/openapi.json"})
	})
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
