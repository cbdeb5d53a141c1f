package httpapi

import (
	"net/http"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/usage"
)

// parseTime accepts RFC 3339 or a plain date (UTC midnight).
func parseTime(field, v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t, nil
	}
	return time.Time{}, &model.FieldError{Field: field, Problem: "is not a time", Fix: "use a date (2026-11-01) or RFC 3339 (2026-11-01T08:00:00Z)"}
}

// usageReport serves GET /api/v1/usage/report?from=&to=&type=summary|detailed.
// Members and team viewers see their team's rows only.
func (s *Server) usageReport(w http.ResponseWriter, r *http.Request, p principal) error {
	q := r.URL.Query()
	from, err := parseTime("from", q.Get("from"))
	if err != nil {
		return err
	}
	to, err := parseTime("to", q.Get("to"))
	if err != nil {
		return err
	}
	kind := q.Get("type")
	if kind == "" {
		kind = usage.Summary
	}
	runs, err := s.st.Runs(r.Context(), from, to)
	if err != nil {
		return err
	}
	sessions, err := s.st.Sessions(r.Context())
	if err != nil {
		return err
	}
	v := s.eng.View()
	rep, err := usage.Build(kind, v.ClusterName(), v.Catalog(), runs, sessions, from, to, time.Now().UTC(), p.readableTeams())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}
