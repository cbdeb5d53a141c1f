package httpapi

import (
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestSubmitWithoutTeamNamesTheField: a member who leaves out "team" is told
// that the field is required and which team its token may use, not that its
// token may do nothing (403); an admin is told the field too. Nothing is
// stored, and the refusal is audited.
func TestSubmitWithoutTeamNamesTheField(t *testing.T) {
	e := newEnv(t, testCluster)
	member := e.token(model.RoleMember, "alpha")
	body := `{"name": "x", "instanceType": "ml.p5.48xlarge", "command": ["true"]}`
	code, out := e.do("POST", "/api/v1/tasks", member, body)
	if code != 400 || !strings.Contains(string(out), `"field":"team"`) || !strings.Contains(string(out), `\"alpha\", your token's team`) {
		t.Fatalf("member without team: %d %s", code, out)
	}
	code, out = e.do("POST", "/api/v1/tasks", e.admin, body)
	if code != 400 || !strings.Contains(string(out), `"field":"team"`) {
		t.Fatalf("admin without team: %d %s", code, out)
	}
	var list struct{ Tasks []any }
	e.mustDo("GET", "/api/v1/tasks", e.admin, nil, 200, &list)
	if len(list.Tasks) != 0 {
		t.Fatalf("a submission without a team stored %d tasks", len(list.Tasks))
	}
	var audit struct{ Entries []model.AuditEntry }
	e.mustDo("GET", "/api/v1/audit", e.admin, nil, 200, &audit)
	refused := 0
	for _, a := range audit.Entries {
		if a.Action == "task.submit" && a.Result == "refused: invalid" {
			refused++
		}
	}
	if refused != 2 {
		t.Fatalf("audit holds %d refused submissions, want 2: %+v", refused, audit.Entries)
	}
}

// TestHugeNodeCountSaysTheBound: a node count above the bound is told the
// bound, not "ask for 1 or more nodes".
func TestHugeNodeCountSaysTheBound(t *testing.T) {
	e := newEnv(t, testCluster)
	code, out := e.do("POST", "/api/v1/tasks", e.admin,
		`{"name": "x", "team": "alpha", "instanceType": "ml.p5.48xlarge", "nodes": 99999999999, "command": ["true"]}`)
	if code != 400 || !strings.Contains(string(out), "ask for 1 to 10000 nodes") || strings.Contains(string(out), "1 or more") {
		t.Fatalf("%d %s", code, out)
	}
}

// TestTimesBeyondTheStoreAreRefused: a usage report or audit range past
// what a stored time can hold (2262) is refused naming the bound; before,
// to=9999-12-31 wrapped to a time before 1970 and the report came back
// empty, as if nothing had run.
func TestTimesBeyondTheStoreAreRefused(t *testing.T) {
	e := newEnv(t, testCluster)
	for _, path := range []string{
		"/api/v1/usage/report?from=2026-01-01&to=9999-12-31",
		"/api/v1/usage/report?from=0001-01-01&to=2026-01-01",
		"/api/v1/audit?to=9999-12-31",
		"/api/v1/audit?from=1000-01-01",
		"/api/v1/tasks?since=3000-01-01T00:00:00Z",
	} {
		code, out := e.do("GET", path, e.admin, nil)
		if code != 400 || !strings.Contains(string(out), "outside the times taskgov stores") || !strings.Contains(string(out), "2262-04-11") {
			t.Errorf("%s: %d %s", path, code, out)
		}
	}
	e.mustDo("GET", "/api/v1/usage/report?from=1970-01-01&to=2262-01-01", e.admin, nil, 200, nil)
	code, out := e.do("GET", "/api/v1/audit?actor=nobody", e.admin, nil)
	if code != 200 || !strings.Contains(string(out), `"entries":[]`) {
		t.Fatalf("an audit search that finds nothing: %d %s; want an empty list", code, out)
	}
}
