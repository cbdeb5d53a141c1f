package httpapi

import (
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestBadInputChangesNothing: each bad request gets a clear 4xx naming the
// problem, and no task is stored.
func TestBadInputChangesNothing(t *testing.T) {
	e := newEnv(t, testCluster)
	good := `"team": "alpha", "instanceType": "ml.p5.48xlarge", "command": ["true"]`
	cases := []struct {
		name, body string
		status     int
		mention    string
	}{
		{"malformed JSON", `{"name": "x", `, 400, "not valid JSON"},
		{"unknown field", `{"name": "x", "gpus": 4, ` + good + `}`, 400, `unknown field \"gpus\"`},
		{"two values", `{"name": "x", ` + good + `} {}`, 400, "more than one JSON value"},
		{"oversize body", `{"name": "x", "env": {"A": "` + strings.Repeat("a", 2<<20) + `"}, ` + good + `}`, 413, "too large"},
		{"negative GPUs", `{"name": "x", "perNode": {"gpus": -2}, ` + good + `}`, 400, "perNode"},
		{"absurd node count", `{"name": "x", "nodes": 100000, ` + good + `}`, 400, "nodes"},
		{"GPUs beyond a node", `{"name": "x", "perNode": {"gpus": 64}, ` + good + `}`, 400, "perNode"},
		{"vCPU that overflows", `{"name": "x", "perNode": {"vcpu": 1e20}, ` + good + `}`, 400, "needs more vCPU than one node has"},
		{"uppercase name", `{"name": "Train_Job", ` + good + `}`, 400, "Kubernetes DNS label"},
		{"name too long", `{"name": "` + strings.Repeat("a", 64) + `", ` + good + `}`, 400, "name"},
		{"unknown team", `{"name": "x", "team": "nobody", "instanceType": "ml.p5.48xlarge", "command": ["true"]}`, 400, `unknown team \"nobody\"`},
		{"unknown instance type", `{"name": "x", "team": "alpha", "instanceType": "ml.p9.huge", "command": ["true"]}`, 400, "unknown instance type"},
		{"unknown priority", `{"name": "x", "priority": "urgent", ` + good + `}`, 400, "unknown priority class"},
		{"bad grace period", `{"name": "x", "gracePeriodSeconds": -5, ` + good + `}`, 400, "gracePeriodSeconds"},
	}
	for _, c := range cases {
		code, body := e.do("POST", "/api/v1/tasks", e.admin, []byte(c.body))
		if code != c.status || !strings.Contains(string(body), c.mention) {
			t.Errorf("%s: %d %s; want %d mentioning %q", c.name, code, body, c.status, c.mention)
		}
	}
	if code, body := e.do("PUT", "/api/v1/teams/alpha", e.admin, `{"name": "alpha", "fairShareWeight": 300}`); code != 400 ||
		!strings.Contains(string(body), "fairShareWeight") {
		t.Errorf("bad team: %d %s", code, body)
	}
	if code, body := e.do("PUT", "/api/v1/teams/alpha", e.admin, `{"name": "alpha", "quotas": [{"instanceType": "ml.p5.48xlarge", "count": -1}]}`); code != 400 ||
		!strings.Contains(string(body), "negative") {
		t.Errorf("negative quota: %d %s", code, body)
	}
	if code, body := e.do("GET", "/api/v1/tasks?limit=0", e.admin, nil); code != 400 || !strings.Contains(string(body), "limit") {
		t.Errorf("bad limit: %d %s", code, body)
	}
	if code, body := e.do("GET", "/api/v1/tasks?since=yesterday", e.admin, nil); code != 400 || !strings.Contains(string(body), "since") ||
		!strings.Contains(string(body), "RFC 3339") {
		t.Errorf("bad since: %d %s", code, body)
	}
	if code, body := e.do("GET", "/api/v1/cluster", e.token(model.RoleMember, "alpha"), nil); code != 403 {
		t.Errorf("a member read the whole cluster: %d %s", code, body)
	}
	var list struct{ Tasks []any }
	e.mustDo("GET", "/api/v1/tasks", e.admin, nil, 200, &list)
	if len(list.Tasks) != 0 {
		t.Fatalf("bad input stored %d tasks", len(list.Tasks))
	}
	var teams struct {
		Teams []struct{ FairShareWeight int }
	}
	e.mustDo("GET", "/api/v1/teams", e.admin, nil, 200, &teams)
	if teams.Teams[0].FairShareWeight != 1 {
		t.Fatalf("a refused team change altered the team: %+v", teams.Teams[0])
	}
}

// TestNoInternalsIn404: unknown endpoints say where to look.
func TestUnknownEndpoint(t *testing.T) {
	e := newEnv(t, testCluster)
	code, body := e.do("GET", "/api/v2/tasks", e.admin, nil)
	if code != 404 || !strings.Contains(string(body), "openapi.json") {
		t.Fatalf("%d %s", code, body)
	}
}
