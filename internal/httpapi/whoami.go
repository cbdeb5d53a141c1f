package httpapi

import (
	"context"
	"net/http"
	"regexp"

	"github.com/taskgov/taskgov/internal/model"
)

// actor is a token as other users see it: its name (the note it was issued
// with), role and team; never its secret.
type actor struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Role string `json:"role"`
	Team string `json:"team,omitempty"`
}

// whoami serves GET /api/v1/whoami: the calling token's id, name, role and
// team, so the dashboard can say who is logged in and offer only the
// controls that token may use.
func (s *Server) whoami(w http.ResponseWriter, r *http.Request, p principal) error {
	me := actor{ID: p.ID, Role: p.Role, Team: p.Team}
	if names, err := s.actors(r.Context(), []string{p.ID}); err == nil {
		if a, ok := names[p.ID]; ok {
			me = a
		}
	}
	writeJSON(w, http.StatusOK, me)
	return nil
}

// tokenID matches the token ids that task messages name as actors
// ("suspended by tok-0ef95c8666c2").
var tokenID = regexp.MustCompile(`\btok-[0-9a-f]{12}\b`)

// actorsIn resolves the token ids named in texts, for display.
func (s *Server) actorsIn(ctx context.Context, texts ...string) (map[string]actor, error) {
	var ids []string
	for _, t := range texts {
		ids = append(ids, tokenID.FindAllString(t, -1)...)
	}
	if len(ids) == 0 {
		return map[string]actor{}, nil
	}
	return s.actors(ctx, ids)
}

// actors looks up token ids (revoked ones included: they may have acted).
func (s *Server) actors(ctx context.Context, ids []string) (map[string]actor, error) {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	toks, err := s.st.Tokens(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]actor{}
	for _, t := range toks {
		if want[t.ID] {
			out[t.ID] = actorOf(t)
		}
	}
	return out, nil
}

func actorOf(t model.Token) actor {
	name := t.Note
	if name == "" {
		name = t.ID
	}
	return actor{ID: t.ID, Name: name, Role: t.Role, Team: t.Team}
}
