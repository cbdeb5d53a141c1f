package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

// TestUnknownQueryParamIsRefused: every authenticated route answers an
// unknown query parameter with a 400 naming it and listing what the route
// takes (a typo such as ?stat=Pending used to list every task), for an
// admin and a member alike, and a refused change stores nothing.
func TestUnknownQueryParamIsRefused(t *testing.T) {
	e := newEnv(t, testCluster)
	member := e.token("member", "alpha")
	values := strings.NewReplacer("{name}", "alpha", "{action}", "cordon", "{id}", "nosuch")
	for _, rt := range (&Server{}).apiRoutes() {
		if anyQuery[rt.pattern] {
			continue
		}
		method, path, _ := strings.Cut(rt.pattern, " ")
		var body any
		switch rt.pattern {
		case "POST /api/v1/tasks":
			body = spec("typo-dryrun", "alpha", "true")
		case "PUT /api/v1/teams/{name}":
			path, body = "/api/v1/teams/{name}-new", model.Team{Name: "alpha-new"}
		}
		for _, token := range []string{e.admin, member} {
			code, out := e.do(method, values.Replace(path)+"?dryrun=1", token, body)
			var got struct{ Error apiError }
			_ = json.Unmarshal(out, &got)
			if code != 400 || got.Error.Field != "dryrun" || !strings.Contains(got.Error.Message, `unknown query parameter "dryrun"`) {
				t.Errorf("%s?dryrun=1: %d %s; want a 400 naming dryrun", rt.pattern, code, out)
				continue
			}
			for _, p := range queryParams[rt.pattern] {
				if !strings.Contains(got.Error.Fix, p) {
					t.Errorf("%s: the fix %q does not list %s", rt.pattern, got.Error.Fix, p)
				}
			}
			if method != http.MethodGet && !strings.Contains(got.Error.Message, "nothing was changed") {
				t.Errorf("%s: %q does not say nothing was changed", rt.pattern, got.Error.Message)
			}
		}
	}
	// Nothing stored by the refused changes, and each refusal is audited.
	e.mustDo("GET", "/api/v1/tasks/typo-dryrun", e.admin, nil, 404, nil)
	var teams struct{ Teams []model.Team }
	e.mustDo("GET", "/api/v1/teams", e.admin, nil, 200, &teams)
	if slices.ContainsFunc(teams.Teams, func(t model.Team) bool { return t.Name == "alpha-new" }) {
		t.Error("PUT /api/v1/teams/alpha-new?dryrun=1 created the team")
	}
	var audit struct{ Entries []model.AuditEntry }
	e.mustDo("GET", "/api/v1/audit?action=task.submit", e.admin, nil, 200, &audit)
	if len(audit.Entries) != 2 || audit.Entries[0].Result != "refused: invalid" {
		t.Errorf("audit of the refused submissions: %+v; want two, refused: invalid", audit.Entries)
	}
	// The submission goes through without the typo.
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("typo-dryrun", "alpha", "true"), 201, nil)

	for _, c := range []struct{ path, field, says string }{
		{"/api/v1/tasks?stat=Pending", "stat", `unknown query parameter "stat" for GET /api/v1/tasks`},
		{"/api/v1/tasks?state=Pending&zeta=1&alpha=2", "alpha", `unknown query parameters "alpha", "zeta"`},
		{"/api/v1/tasks?a=1&b=2&c=3&d=4&e=5&f=6&g=7", "a", `"e" and 2 more`},
		{"/api/v1/whoami?verbose", "verbose", "takes no query parameters"},
		{"/api/v1/tasks?state=%zz", "", "the query string cannot be read"},
		{"/api/v1/tasks?state=Pending;team=alpha", "", "the query string cannot be read"},
	} {
		code, out := e.do("GET", c.path, member, nil)
		var got struct{ Error apiError }
		_ = json.Unmarshal(out, &got)
		if code != 400 || got.Error.Field != c.field || !strings.Contains(got.Error.Message+" "+got.Error.Fix, c.says) {
			t.Errorf("%s: %d %s; want a 400 naming %q and saying %q", c.path, code, out, c.field, c.says)
		}
	}
	// Authentication comes first: no token is a 401 whatever the query.
	if code, out := e.do("GET", "/api/v1/tasks?stat=Pending", "", nil); code != 401 {
		t.Errorf("no token, unknown parameter: %d %s; want 401", code, out)
	}
	// Routes outside the API take any query: a cache-buster on a static
	// file, a probe's or a scraper's own parameters.
	for _, path := range []string{"/healthz?x=1", "/readyz?x=1", "/ui/?v=123", "/favicon.ico?v=1", "/api/v1/openapi.json?v=2"} {
		if code, out := e.do("GET", path, "", nil); code != 200 {
			t.Errorf("%s: %d %.200s; want 200", path, code, out)
		}
	}
}

// TestQueryParamsMatchOpenAPI: the table checkQuery enforces and the
// query parameters openapi.json documents are the same, route by route
// (read from it, so this checks the reading), and the table names only
// routes the server has.
func TestQueryParamsMatchOpenAPI(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name, In string }
		}
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	routes := map[string]bool{}
	for _, rt := range (&Server{}).apiRoutes() {
		routes[rt.pattern] = true
		method, path, _ := strings.Cut(rt.pattern, " ")
		var documented []string
		for _, p := range doc.Paths[path][strings.ToLower(method)].Parameters {
			if p.In == "query" {
				documented = append(documented, p.Name)
			}
		}
		slices.Sort(documented)
		enforced := slices.Sorted(slices.Values(queryParams[rt.pattern]))
		if !anyQuery[rt.pattern] && !slices.Equal(documented, enforced) {
			t.Errorf("%s: openapi.json documents %v, the server takes %v", rt.pattern, documented, enforced)
		}
	}
	for pattern := range queryParams {
		if !routes[pattern] {
			t.Errorf("queryParams names %q, which is not a route", pattern)
		}
	}
}

// TestOwnClientsQueriesAreAccepted: every query our own clients build is
// taken. The Go client (the taskgov CLI, hyp and hyperpod go through
// internal/client) is called for real; the dashboard's and the docs'
// requests are listed as they build them (internal/ui/assets, demo.go).
func TestOwnClientsQueriesAreAccepted(t *testing.T) {
	e := newEnv(t, testCluster)
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("owned", "alpha", "echo", "hi"), 201, nil)
	e.waitState("owned", model.StateSucceeded, 30*time.Second)

	ctx := context.Background()
	c := client.New(e.url, e.admin)
	q := client.TaskQuery{Team: "alpha", States: []string{"Succeeded", "Pending"}, Since: time.Now().Add(-time.Hour)}
	if page, err := c.TasksPage(ctx, q, 10, 0); err != nil || len(page.Tasks) != 1 {
		t.Errorf("client TasksPage: %v, %d tasks; want the one", err, len(page.Tasks))
	}
	if _, err := c.TaskLogPart(ctx, "owned", 0, 0); err != nil {
		t.Errorf("client TaskLogPart: %v", err)
	}
	if _, err := c.Queue(ctx, "alpha"); err != nil {
		t.Errorf("client Queue: %v", err)
	}
	if _, err := c.UsageReport(ctx, "2026-01-01", "2026-02-01", "detailed", "alpha", "beta"); err != nil {
		t.Errorf("client UsageReport: %v", err)
	}

	for _, r := range []struct{ from, path string }{
		{"page-tasks.js render", "/api/v1/tasks?sort=name&order=desc&offset=0&limit=50&team=alpha&state=Succeeded&q=own"},
		{"page-tasks.js figures", "/api/v1/tasks?limit=1&summary=1&team=alpha"},
		{"page-tasks.js queueHeads", "/api/v1/queue?team=alpha&limit=5"},
		{"page-task.js", "/api/v1/tasks?limit=1000&q=owned"},
		{"page-task.js why", "/api/v1/queue?team=alpha&limit=1"},
		{"page-task.js pods", "/api/v1/tasks/owned/logs?rank=0"},
		{"page-cluster.js", "/api/v1/topology?format=text"},
		{"page-cluster.js", "/api/v1/trends?window=1d"},
		{"page-cluster.js", "/api/v1/queue?summary=1"},
		{"page-usage.js", "/api/v1/usage/report?from=2026-01-01&to=2026-02-01&type=summary"},
		{"preemptions-card.js", "/api/v1/preemptions?limit=20&team=alpha"},
		{"preemptions-card.js hint", "/api/v1/preemptions?before=7"},
		{"demo.go curl hint", "/api/v1/topology?format=text"},
		{"SERVER.md logs", "/api/v1/tasks/owned/logs?tail=10&limitBytes=100"},
		{"SERVER.md events", "/api/v1/tasks/owned/events?after=1"},
		{"SERVER.md audit", "/api/v1/audit?team=alpha&task=owned&actor=admin&action=task.submit&after=1&from=2026-01-01&to=2099-01-01"},
		{"SERVER.md deleted", "/api/v1/tasks?deleted=true"},
	} {
		if code, out := e.do("GET", r.path, e.admin, nil); code != 200 {
			t.Errorf("%s: GET %s: %d %.300s", r.from, r.path, code, out)
		}
	}
}
