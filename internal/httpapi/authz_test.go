package httpapi

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestAuthorizationMatrix calls every endpoint as each kind of caller and
// checks the status: admin; a member of the owning team (alpha); a member of
// another team (beta); a cluster-wide viewer; no token; a bad token.
func TestAuthorizationMatrix(t *testing.T) {
	e := newEnv(t, testCluster)
	who := []string{"admin", "owner", "other", "viewer", "none", "bad"}
	tok := map[string]string{
		"admin": e.admin, "owner": e.token(model.RoleMember, "alpha"), "other": e.token(model.RoleMember, "beta"),
		"viewer": e.token(model.RoleViewer, ""), "none": "", "bad": "tg_not-a-real-token",
	}
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("owned", "alpha", "sleep", "30"), 201, nil)
	e.waitState("owned", model.StateRunning, 5*time.Second)
	n := 0
	submit := func() any { n++; return spec(fmt.Sprintf("sub-%d", n), "alpha", "true") }
	team := map[string]any{"name": "gamma", "quotas": []any{}}
	cases := []struct {
		method, path string
		body         func() any
		want         [6]int // in the order of who
	}{
		{"GET", "/api/v1/tasks/owned", nil, [6]int{200, 200, 404, 200, 401, 401}},
		{"GET", "/api/v1/tasks/owned/events", nil, [6]int{200, 200, 404, 200, 401, 401}},
		{"GET", "/api/v1/tasks/owned/logs", nil, [6]int{200, 200, 404, 200, 401, 401}},
		{"GET", "/api/v1/tasks?team=alpha", nil, [6]int{200, 200, 403, 200, 401, 401}},
		{"GET", "/api/v1/tasks", nil, [6]int{200, 200, 200, 200, 401, 401}},
		{"GET", "/api/v1/queue?team=alpha", nil, [6]int{200, 200, 403, 200, 401, 401}},
		{"POST", "/api/v1/tasks", submit, [6]int{201, 201, 403, 403, 401, 401}},
		{"POST", "/api/v1/tasks/owned/checkpoint", nil, [6]int{200, 200, 404, 403, 401, 401}},
		{"POST", "/api/v1/tasks/owned/priority", func() any { return map[string]string{"priority": "training"} }, [6]int{200, 200, 404, 403, 401, 401}},
		{"GET", "/api/v1/teams", nil, [6]int{200, 200, 200, 200, 401, 401}},
		{"PUT", "/api/v1/teams/gamma", func() any { return team }, [6]int{200, 403, 403, 403, 401, 401}},
		{"GET", "/api/v1/usage", nil, [6]int{200, 200, 200, 200, 401, 401}},
		{"GET", "/api/v1/usage/report?from=2026-01-01&to=2262-01-01&team=alpha", nil, [6]int{200, 200, 403, 200, 401, 401}},
		{"GET", "/api/v1/preemptions?team=alpha", nil, [6]int{200, 200, 403, 200, 401, 401}},
		{"GET", "/api/v1/policy", nil, [6]int{200, 200, 200, 200, 401, 401}},
		{"PUT", "/api/v1/policy", func() any {
			return map[string]any{"taskPrioritization": "TaskRanking",
				"priorityClasses": []any{map[string]any{"name": "inference", "weight": 90}, map[string]any{"name": "training", "weight": 70}}}
		}, [6]int{200, 403, 403, 403, 401, 401}},
		{"GET", "/api/v1/nodes", nil, [6]int{200, 200, 200, 200, 401, 401}},
		{"POST", "/api/v1/nodes/p5-3/cordon", nil, [6]int{204, 403, 403, 403, 401, 401}},
		{"GET", "/api/v1/topology", nil, [6]int{200, 200, 200, 200, 401, 401}},
		{"GET", "/api/v1/tokens", nil, [6]int{200, 403, 403, 403, 401, 401}},
		{"POST", "/api/v1/tokens", func() any { return map[string]string{"role": "viewer"} }, [6]int{201, 403, 403, 403, 401, 401}},
		{"GET", "/api/v1/audit", nil, [6]int{200, 403, 403, 403, 401, 401}},
		{"DELETE", "/api/v1/teams/gamma", nil, [6]int{204, 403, 403, 403, 401, 401}},
		{"POST", "/api/v1/tasks/owned/suspend", nil, [6]int{200, 200, 404, 403, 401, 401}},
		// The owner acts before the admin, so the admin finds it done already.
		{"POST", "/api/v1/tasks/owned/resume", nil, [6]int{409, 200, 404, 403, 401, 401}},
		{"POST", "/api/v1/tasks/owned/cancel", nil, [6]int{404, 200, 404, 403, 401, 401}},
	}
	for _, c := range cases {
		// The admin goes last, so that its change does not hide the others' answers.
		for _, p := range who[1:] {
			var body any
			if c.body != nil {
				body = c.body()
			}
			if code, b := e.do(c.method, c.path, tok[p], body); code != c.want[indexOf(who, p)] {
				t.Errorf("%s %s as %s: %d, want %d: %s", c.method, c.path, p, code, c.want[indexOf(who, p)], b)
			}
		}
		var body any
		if c.body != nil {
			body = c.body()
		}
		if code, b := e.do(c.method, c.path, tok["admin"], body); code != c.want[0] {
			t.Errorf("%s %s as admin: %d, want %d: %s", c.method, c.path, code, c.want[0], b)
		}
	}
	// Other teams' task names are hidden in the topology view.
	_, b := e.do("GET", "/api/v1/topology", tok["other"], nil)
	if strings.Contains(string(b), `"sub-`) {
		t.Errorf("a member of beta sees alpha's task names in the topology: %s", b)
	}
	// Refused mutating calls are audited.
	var audit struct{ Entries []model.AuditEntry }
	e.mustDo("GET", "/api/v1/audit", e.admin, nil, 200, &audit)
	forbidden := 0
	for _, a := range audit.Entries {
		if a.Result == "forbidden" {
			forbidden++
		}
	}
	if forbidden == 0 {
		t.Fatal("no forbidden call reached the audit log")
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
