package httpapi

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/testwait"
)

// TestRefusedCallsAreAudited (issue 14, finding 6): a member's cancel,
// suspend, checkpoint and priority calls on another team's task answer 404,
// as if it did not exist, and each is in the audit log.
func TestRefusedCallsAreAudited(t *testing.T) {
	e := newEnv(t, testCluster)
	var beta struct{ Token, ID string }
	e.mustDo("POST", "/api/v1/tokens", e.admin, map[string]string{"role": "member", "team": "beta"}, 201, &beta)
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("owned", "alpha", "sleep", "30"), 201, nil)
	for _, action := range []string{"cancel", "suspend", "checkpoint", "priority"} {
		if code, b := e.do("POST", "/api/v1/tasks/owned/"+action, beta.Token, map[string]string{"priority": "training"}); code != 404 {
			t.Errorf("%s of another team's task: %d %s", action, code, b)
		}
	}
	var audit struct{ Entries []model.AuditEntry }
	e.mustDo("GET", "/api/v1/audit?actor="+beta.ID, e.admin, nil, 200, &audit)
	got := map[string]string{}
	for _, a := range audit.Entries {
		got[a.Action] = a.Target + " " + a.Result
	}
	for _, action := range []string{"cancel", "suspend", "checkpoint", "priority"} {
		if got["task."+action] != "owned refused: not_found" {
			t.Errorf("audit of the refused %s: %q (all: %v)", action, got["task."+action], got)
		}
	}
}

// TestDeletingATeamRevokesItsTokens (issue 14, finding 7): a member token of
// a deleted team answers 401, also once a team of the same name is created
// again.
func TestDeletingATeamRevokesItsTokens(t *testing.T) {
	e := newEnv(t, testCluster)
	team := map[string]any{"name": "gamma", "quotas": []any{}}
	e.mustDo("PUT", "/api/v1/teams/gamma", e.admin, team, 200, nil)
	tok := e.token(model.RoleMember, "gamma")
	e.mustDo("GET", "/api/v1/tasks", tok, nil, 200, nil)
	e.mustDo("DELETE", "/api/v1/teams/gamma", e.admin, nil, 204, nil)
	if code, b := e.do("GET", "/api/v1/tasks", tok, nil); code != 401 {
		t.Errorf("token of a deleted team: %d %s", code, b)
	}
	e.mustDo("PUT", "/api/v1/teams/gamma", e.admin, team, 200, nil)
	if code, b := e.do("POST", "/api/v1/tasks", tok, spec("back", "gamma", "true")); code != 401 {
		t.Errorf("token of a deleted team, after the team came back: %d %s", code, b)
	}
	var toks struct{ Tokens []model.Token }
	e.mustDo("GET", "/api/v1/tokens", e.admin, nil, 200, &toks)
	for _, k := range toks.Tokens {
		if k.Team == "gamma" && k.RevokedAt.IsZero() {
			t.Errorf("token %s of the deleted team is not revoked", k.ID)
		}
	}
}

// TestOddInputAnswers400 (issue 14, finding 12): a null body and an unknown
// state filter are bad requests with the fix, not 403 and 200.
func TestOddInputAnswers400(t *testing.T) {
	e := newEnv(t, testCluster)
	member := e.token(model.RoleMember, "alpha")
	for _, body := range []string{"null", " [1]", "7", ""} {
		if code, b := e.do("POST", "/api/v1/tasks", member, body); code != 400 || !strings.Contains(string(b), `"fix"`) {
			t.Errorf("body %q: %d %s", body, code, b)
		}
	}
	if code, b := e.do("GET", "/api/v1/tasks?state=Bogus", member, nil); code != 400 || !strings.Contains(string(b), "Pending, Running") {
		t.Errorf("state=Bogus: %d %s", code, b)
	}
}

// TestSecurityHeaders (issue 14, finding 12): the dashboard and the API send
// CSP, X-Frame-Options and nosniff.
func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t, testCluster)
	for _, path := range []string{"/ui/", "/api/v1/tasks", "/healthz"} {
		resp, err := http.Get(e.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") || h.Get("X-Frame-Options") != "DENY" ||
			h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: headers %v", path, h)
		}
	}
}

// TestPerTokenLimits (issue 14, findings 9 and 11): a member token that
// sends too fast, or opens too many event streams, gets 429 with
// Retry-After; an admin token is not rate-limited.
func TestPerTokenLimits(t *testing.T) {
	e := newEnv(t, testCluster)
	member := e.token(model.RoleMember, "alpha")
	limited := 0
	for i := 0; i < 3*DefaultLimits.Burst; i++ {
		req, _ := http.NewRequest("GET", e.url+"/api/v1/queue", nil)
		req.Header.Set("Authorization", "Bearer "+member)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 429 {
			limited++
			if resp.Header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
		}
	}
	if limited == 0 {
		t.Errorf("%d requests at once from one member token: none refused", 3*DefaultLimits.Burst)
	}
	for i := 0; i < 3*DefaultLimits.Burst; i++ {
		if code, b := e.do("GET", "/api/v1/queue", e.admin, nil); code != 200 {
			t.Fatalf("admin request %d: %d %s", i, code, b)
		}
	}

	viewer := e.token(model.RoleViewer, "beta")
	var open []*http.Response
	defer func() {
		for _, r := range open {
			r.Body.Close()
		}
	}()
	for i := 0; i <= DefaultLimits.SSEPerToken; i++ {
		req, _ := http.NewRequest("GET", e.url+"/api/v1/events", nil)
		req.Header.Set("Authorization", "Bearer "+viewer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, resp)
		want := 200
		if i == DefaultLimits.SSEPerToken {
			want = 429
		}
		if resp.StatusCode != want || (want == 429 && resp.Header.Get("Retry-After") == "") {
			t.Fatalf("stream %d: %d (Retry-After %q), want %d", i+1, resp.StatusCode, resp.Header.Get("Retry-After"), want)
		}
	}
	// Closing one frees its place, once the server has seen it closed (a
	// fixed 200 ms wait for that failed under load).
	open[0].Body.Close()
	last := 0
	err := testwait.Until(5*time.Second, 50*time.Millisecond, func() bool {
		req, _ := http.NewRequest("GET", e.url+"/api/v1/events", nil)
		req.Header.Set("Authorization", "Bearer "+viewer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if last = resp.StatusCode; last != 200 {
			resp.Body.Close()
			return false
		}
		open = append(open, resp)
		return true
	})
	if err != nil {
		t.Errorf("a stream after one closed: %d, %v", last, err)
	}
}
