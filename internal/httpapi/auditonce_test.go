package httpapi

import (
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestRefusalAuditedOnce: a change the engine refuses in its op (a cancel
// of no such task, a team or node that does not exist, a name in use) has
// one audit entry, the op's, not a second one from the API; a refusal
// before any op (a member's forbidden call) still has its one entry.
func TestRefusalAuditedOnce(t *testing.T) {
	e := newEnv(t, pendingCapCluster)
	alpha := e.token(model.RoleMember, "alpha")
	job := map[string]any{"name": "dup", "team": "alpha", "instanceType": "ml.p5.48xlarge", "command": []string{"true"}}
	e.mustDo("POST", "/api/v1/tasks", alpha, job, 201, nil)
	calls := []struct{ method, path, token string }{
		{"POST", "/api/v1/tasks", alpha},               // the name is in use
		{"POST", "/api/v1/tasks/nope/cancel", e.admin}, // no such task
		{"DELETE", "/api/v1/teams/nope", e.admin},      // no such team
		{"POST", "/api/v1/nodes/nope/cordon", e.admin}, // no such node
		{"PUT", "/api/v1/policy", alpha},               // forbidden
	}
	for _, c := range calls {
		var body any
		if c.method == "POST" && c.path == "/api/v1/tasks" {
			body = job
		}
		if c.path == "/api/v1/policy" {
			body = map[string]any{}
		}
		if code, out := e.do(c.method, c.path, c.token, body); code < 400 {
			t.Fatalf("%s %s: %d %s, want a refusal", c.method, c.path, code, out)
		}
	}
	var audit struct{ Entries []model.AuditEntry }
	e.mustDo("GET", "/api/v1/audit", e.admin, nil, 200, &audit)
	refusals := map[string]int{}
	for _, a := range audit.Entries {
		if strings.HasPrefix(a.Result, "refused") || a.Result == "forbidden" {
			refusals[a.Action]++
		}
	}
	for _, action := range []string{"task.submit", "task.cancel", "team.delete", "node.cordon", "policy.set"} {
		if refusals[action] != 1 {
			t.Errorf("%s: %d refusals in the audit log, want 1 (all: %v; entries %+v)", action, refusals[action], refusals, audit.Entries)
		}
	}
}
