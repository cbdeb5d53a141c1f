package httpapi

import (
	"math"
	"net/http"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/usage"
)

// parseTime accepts RFC 3339 or a plain date (UTC midnight), within the
// times the stores can compare (nanoseconds since 1970 in an int64): a
// time beyond them would wrap and match nothing, so it is refused.
func parseTime(field, v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		if t, err = time.Parse("2006-01-02", v); err != nil {
			return time.Time{}, &model.FieldError{Field: field, Problem: "is not a time", Fix: "use a date (2026-11-01) or RFC 3339 (2026-11-01T08:00:00Z)"}
		}
	}
	if t.Before(earliestTime) || t.After(latestTime) {
		return time.Time{}, &model.FieldError{Field: field, Problem: "is outside the times taskgov stores",
			Fix: "use a time from " + earliestTime.Format(time.RFC3339) + " to " + latestTime.Format(time.RFC3339)}
	}
	return t.UTC(), nil
}

// The times a stored time (UnixNano) can hold, to the second.
var (
	earliestTime = time.Unix(0, math.MinInt64).UTC().Truncate(time.Second).Add(time.Second)
	latestTime   = time.Unix(0, math.MaxInt64).UTC().Truncate(time.Second)
)

// usageReport serves GET /api/v1/usage/report?from=&to=&type=summary|detailed&team=T.
// Members and team viewers see their team's rows only; with team (repeatable),
// only those teams' rows, and a team they may not read is a 403, as for
// preemptions and tasks.
func (s *Server) usageReport(w http.ResponseWriter, r *http.Request, p principal) error {
	q := r.URL.Query()
	teams, err := reportTeams(q["team"], p)
	if err != nil {
		return err
	}
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
	rep, err := usage.Build(kind, v.ClusterName(), v.Catalog(), runs, sessions, from, to, time.Now().UTC(), teams)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}

// reportTeams is the set of teams a usage report covers (nil: all): the
// named ones, each of which p must be able to read, else those p may read.
func reportTeams(named []string, p principal) (map[string]bool, error) {
	if err := checkQueryTeams(named); err != nil {
		return nil, err
	}
	for _, t := range named {
		if t == "" {
			return nil, &model.FieldError{Field: "team", Problem: "is empty", Fix: "name a team, or leave team out for every team you may read"}
		}
	}
	named, err := p.teamFilter(named)
	if err != nil || len(named) == 0 {
		return nil, err
	}
	teams := make(map[string]bool, len(named))
	for _, t := range named {
		teams[t] = true
	}
	return teams, nil
}
