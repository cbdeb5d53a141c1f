package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/trends"
)

func (s *Server) listTeams(w http.ResponseWriter, r *http.Request, p principal) error {
	out := []model.Team{}
	for _, t := range s.eng.View().Teams() {
		if p.canRead(t.Name) {
			out = append(out, t)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"teams": out})
	return nil
}

func (s *Server) putTeam(w http.ResponseWriter, r *http.Request, p principal) error {
	name := r.PathValue("name")
	if !p.admin() {
		return s.forbid(r, p, "team.set", name)
	}
	var t model.Team
	if err := decode(w, r, &t); err != nil {
		return err
	}
	if t.Name == "" {
		t.Name = name
	}
	if t.Name != name {
		return &model.FieldError{Field: "name", Problem: "differs from the name in the path", Fix: "use the same name in both"}
	}
	if err := s.eng.SetTeam(r.Context(), p.ID, t); err != nil {
		return err
	}
	v := s.eng.View()
	writeJSON(w, http.StatusOK, struct {
		model.Team
		Warnings []string `json:"warnings,omitempty"`
	}{t, model.QuotaNotes(t, v.Catalog(), clusterCapacity(v))})
	return nil
}

func (s *Server) deleteTeam(w http.ResponseWriter, r *http.Request, p principal) error {
	name := r.PathValue("name")
	if !p.admin() {
		return s.forbid(r, p, "team.delete", name)
	}
	// The engine revokes the team's tokens in the deletion's transaction.
	err := s.eng.DeleteTeam(r.Context(), p.ID, name)
	s.tokens.clear() // also ends the team's open streams (eventStream)
	if err != nil {
		return err
	}
	s.hub.dropTeam(name)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) usage(w http.ResponseWriter, r *http.Request, p principal) error {
	var rows []apitypes.Usage
	v := s.eng.View()
	capacity := clusterCapacity(v)
	for _, u := range v.Usage() {
		if p.canRead(u.Team) {
			row := usageRow(u)
			if _, ok := capacity[u.InstanceType]; !ok {
				// No nodes of the type: nothing of the quota exists to lend.
				row.NotPresent, row.LentGPUs, row.LentVCPU, row.LentMemGiB = true, 0, 0, 0
			}
			rows = append(rows, row)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"usage": rows})
	return nil
}

func (s *Server) getPolicy(w http.ResponseWriter, r *http.Request, p principal) error {
	writeJSON(w, http.StatusOK, s.eng.View().Policy())
	return nil
}

func (s *Server) putPolicy(w http.ResponseWriter, r *http.Request, p principal) error {
	if !p.admin() {
		return s.forbid(r, p, "policy.set", "cluster")
	}
	var pol model.Policy
	if err := decode(w, r, &pol); err != nil {
		return err
	}
	if err := s.eng.SetPolicy(r.Context(), p.ID, pol); err != nil {
		return err
	}
	return s.getPolicy(w, r, p)
}

func (s *Server) listNodes(w http.ResponseWriter, r *http.Request, p principal) error {
	var rows []apitypes.Node
	for _, n := range s.eng.View().Nodes() {
		rows = append(rows, apitypes.Node{Name: n.Spec.Name, InstanceType: n.Spec.InstanceType, Labels: n.Spec.Labels,
			Healthy: n.Healthy, Schedulable: n.Schedulable, Cordoned: n.Spec.Unschedulable, GPUs: n.GPUs, FreeGPUs: n.FreeGPUs,
			VCPU: vcpu(n.Capacity), FreeVCPU: vcpu(n.Free), MemGiB: gib(n.Capacity), FreeMemGiB: gib(n.Free), HeldFor: n.HeldFor})
	}
	rd := s.redactor(r.Context(), p)
	for i := range rows {
		if rows[i].HeldFor != "" {
			rows[i].HeldFor = rd.name(rows[i].HeldFor)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"nodes": rows})
	return nil
}

func (s *Server) nodeAction(w http.ResponseWriter, r *http.Request, p principal) error {
	name, action := r.PathValue("name"), r.PathValue("action")
	if !p.admin() {
		return s.forbid(r, p, "node."+action, name)
	}
	if err := s.eng.NodeAction(r.Context(), p.ID, name, action); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) topology(w http.ResponseWriter, r *http.Request, p principal) error {
	format := r.URL.Query().Get("format")
	if format != "" && format != "json" && format != "text" {
		return &model.FieldError{Field: "format", Problem: "unknown format " + strconv.Quote(format), Fix: "use text, or json (the default)"}
	}
	view := s.eng.View().Topology() // built for this call: redaction may change it
	s.redactor(r.Context(), p).topology(view.Roots)
	if format == "text" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(view.Text(100)))
		return nil
	}
	writeJSON(w, http.StatusOK, view)
	return nil
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request, p principal) error {
	var body struct {
		Role string `json:"role"`
		Team string `json:"team"`
		Note string `json:"note"`
	}
	if !p.admin() {
		return s.forbid(r, p, "token.create", "")
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	switch {
	case body.Role != model.RoleAdmin && body.Role != model.RoleMember && body.Role != model.RoleViewer:
		return &model.FieldError{Field: "role", Problem: "unknown role " + strconv.Quote(body.Role), Fix: "use admin, member or viewer"}
	case body.Role == model.RoleMember && body.Team == "":
		return &model.FieldError{Field: "team", Problem: "a member token needs a team", Fix: "name the team the member belongs to"}
	}
	if body.Team != "" {
		if !s.eng.View().HasTeam(body.Team) {
			return &model.FieldError{Field: "team", Problem: "unknown team " + strconv.Quote(body.Team), Fix: "create the team first"}
		}
	}
	tok, secret, err := IssueToken(r.Context(), s.st, body.Role, body.Team, body.Note, p.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"token": secret, "id": tok.ID, "role": tok.Role, "team": tok.Team})
	return nil
}

// IssueToken creates a token and records it in the audit log; it returns
// the secret, which is shown once and stored only hashed.
func IssueToken(ctx context.Context, st TokenStore, role, team, note, actor string) (model.Token, string, error) {
	secret, hash := NewSecret()
	tok := model.Token{ID: "tok-" + hash[:12], Role: role, Team: team, Note: note, CreatedAt: time.Now().UTC()}
	err := st.CreateToken(ctx, tok, hash, model.AuditEntry{At: tok.CreatedAt, Actor: actor, Action: "token.create", Target: tok.ID, Result: "ok"})
	return tok, secret, err
}

func (s *Server) listTokens(w http.ResponseWriter, r *http.Request, p principal) error {
	if !p.admin() {
		return errForbidden
	}
	toks, err := s.st.Tokens(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": toks})
	return nil
}

func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request, p principal) error {
	id := r.PathValue("id")
	if !p.admin() {
		return s.forbid(r, p, "token.revoke", id)
	}
	found, err := s.st.RevokeTokenAudited(r.Context(), id, time.Now(), model.AuditEntry{At: time.Now().UTC(), Actor: p.ID, Action: "token.revoke", Target: id})
	if err != nil {
		return err
	}
	if !found {
		return &apiError{Status: http.StatusNotFound, Code: "not_found", Message: "token " + strconv.Quote(id) + ": not found or already revoked"}
	}
	s.tokens.clear() // also ends the token's open streams (eventStream)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) auditLog(w http.ResponseWriter, r *http.Request, p principal) error {
	if !p.admin() {
		return errForbidden
	}
	q := r.URL.Query()
	f := model.AuditFilter{Team: q.Get("team"), Target: q.Get("task"), Actor: q.Get("actor"), Action: q.Get("action")}
	var err error
	if f.AfterID, err = afterID(q.Get("after"), "audit entry"); err != nil {
		return err
	}
	if v := q.Get("from"); v != "" {
		if f.From, err = parseTime("from", v); err != nil {
			return err
		}
	}
	if v := q.Get("to"); v != "" {
		if f.To, err = parseTime("to", v); err != nil {
			return err
		}
	}
	entries, err := s.st.AuditLog(r.Context(), f)
	if err != nil {
		return err
	}
	if entries == nil {
		entries = []model.AuditEntry{} // an empty list, not null
	}
	writeJSON(w, http.StatusOK, map[string]any{"entries": entries})
	return nil
}

// trendsView serves GET /api/v1/trends?window=1h|1d|1w: utilisation samples
// per instance type, fine for up to a day, hourly means beyond.
func (s *Server) trendsView(w http.ResponseWriter, r *http.Request, p principal) error {
	windows := map[string]time.Duration{"1h": time.Hour, "1d": 24 * time.Hour, "1w": 7 * 24 * time.Hour}
	name := r.URL.Query().Get("window")
	if name == "" {
		name = "1h"
	}
	win, ok := windows[name]
	if !ok {
		return &model.FieldError{Field: "window", Problem: "unknown window " + strconv.Quote(name), Fix: "use 1h, 1d or 1w"}
	}
	res := trends.Fine
	if win > 24*time.Hour {
		res = trends.Coarse
	}
	ss, err := s.st.Samples(r.Context(), res, time.Now().Add(-win))
	if err != nil {
		return err
	}
	if res == trends.Coarse {
		if ss, err = s.withRecentFine(r.Context(), ss, time.Now().Add(-win)); err != nil {
			return err
		}
	}
	if ss == nil {
		ss = []model.Sample{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"window": name, "resolutionSeconds": res.Seconds(), "samples": ss})
	return nil
}

// preview serves POST /api/v1/preview {"policy": ..., "teams": [...]}: the
// preemptions and admissions the change would cause now (admin).
func (s *Server) preview(w http.ResponseWriter, r *http.Request, p principal) error {
	if !p.admin() {
		return errForbidden
	}
	var body struct {
		Policy *model.Policy `json:"policy"`
		Teams  []model.Team  `json:"teams"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	d, err := s.eng.Preview(body.Policy, body.Teams)
	if err != nil {
		return err
	}
	if d.Preemptions == nil {
		d.Preemptions = []model.Preemption{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"preemptions": d.Preemptions, "admissions": d.Admissions})
	return nil
}
