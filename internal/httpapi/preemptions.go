package httpapi

import (
	"net/http"
	"strconv"

	"github.com/taskgov/taskgov/internal/model"
)

// listPreemptions serves GET /api/v1/preemptions?team=T&limit=N&before=ID:
// recent preemptions, newest first, each with its victim, what it made room
// for, the teams, the reason and the work lost; with team, those whose
// victim or preemptor is of that team. A member reads its own team's
// (without team, its team is meant) and sees another team's task and team
// as "another team's task" and no team; nextBefore pages on.
func (s *Server) listPreemptions(w http.ResponseWriter, r *http.Request, p principal) error {
	q := r.URL.Query()
	f := model.PreemptionFilter{Teams: q["team"], Limit: 50}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return &model.FieldError{Field: "limit", Problem: "must be a whole number from 1 to 1000", Fix: "pass ?limit=50"}
		}
		f.Limit = n
	}
	if v := q.Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return &model.FieldError{Field: "before", Problem: "must be the nextBefore value of the previous page (a preemption id, 1 or more)",
				Fix: "leave it out for the newest, or pass the nextBefore from the last response"}
		}
		f.BeforeID = n
	}
	if err := checkQueryTeams(f.Teams); err != nil {
		return err
	}
	for _, t := range f.Teams {
		if t == "" {
			return &model.FieldError{Field: "team", Problem: "is empty", Fix: "name a team, or leave team out for every team you may read"}
		}
	}
	allowed := p.readableTeams()
	teams, ferr := p.teamFilter(f.Teams)
	if ferr != nil {
		return ferr
	}
	f.Teams = teams
	recs, err := s.st.Preemptions(r.Context(), f)
	if err != nil {
		return err
	}
	for i := range recs {
		rec := &recs[i]
		if allowed == nil {
			continue
		}
		if !allowed[rec.Team] {
			rec.Task, rec.Team = model.OtherTeamsTask, ""
		}
		if rec.Preemptor != "" && !allowed[rec.PreemptorTeam] {
			rec.Preemptor, rec.PreemptorTeam = model.OtherTeamsTask, ""
		}
	}
	resp := map[string]any{"preemptions": recs, "limit": f.Limit}
	if recs == nil {
		resp["preemptions"] = []model.PreemptionRecord{}
	}
	if len(recs) == f.Limit {
		resp["nextBefore"] = recs[len(recs)-1].ID
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}
