package httpapi

import (
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestEveryBadQueryFieldIsNamed is the sweep of the handlers that read a
// query: each bad or unbounded value gets a 400 naming the field at fault
// (the topology's format, the task page's summary and search, and a team
// list past 1,000 used to be taken silently). Bodies are read through
// decode, bounded at 1 MiB and named field by field (TestBadInputChangesNothing).
func TestEveryBadQueryFieldIsNamed(t *testing.T) {
	e := newEnv(t, testCluster)
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("owned", "alpha", "true"), 201, nil)
	e.waitState("owned", model.StateSucceeded, 30*time.Second)
	teams := "team=" + strings.Repeat("a&team=", maxQueryTeams) + "a"
	const report = "/api/v1/usage/report?from=2026-01-01&to=2026-02-01&"
	for _, c := range []struct{ path, field string }{
		{"/api/v1/tasks?limit=0", "limit"},
		{"/api/v1/tasks?after=-1", "after"},
		{"/api/v1/tasks?since=yesterday", "since"},
		{"/api/v1/tasks?state=Sleeping", "state"},
		{"/api/v1/tasks?deleted=maybe", "deleted"},
		{"/api/v1/tasks?" + teams, "team"},
		{"/api/v1/tasks?q=" + strings.Repeat("a", maxSearchLen+1), "q"},
		{"/api/v1/tasks?sort=color", "sort"},
		{"/api/v1/tasks?order=up", "order"},
		{"/api/v1/tasks?offset=-1", "offset"},
		{"/api/v1/tasks?summary=yes", "summary"},
		{"/api/v1/tasks?q=a&limit=1001", "limit"},
		{"/api/v1/tasks?q=a&" + teams, "team"},
		{"/api/v1/tasks/owned/events?after=x", "after"},
		{"/api/v1/tasks/owned/logs?rank=9", "rank"},
		{"/api/v1/tasks/owned/logs?offset=-1", "offset"},
		{"/api/v1/tasks/owned/logs?tail=0", "tail"},
		{"/api/v1/tasks/owned/logs?limitBytes=0", "limitBytes"},
		{"/api/v1/queue?summary=2", "summary"},
		{"/api/v1/queue?limit=0", "limit"},
		{"/api/v1/queue?offset=-1", "offset"},
		{"/api/v1/usage/report?from=x&to=2026-01-01", "from"},
		{"/api/v1/usage/report?from=2026-01-01&to=x", "to"},
		{report + "type=weekly", "type"},
		{report + "team=", "team"},
		{report + teams, "team"},
		{"/api/v1/trends?window=1y", "window"},
		{"/api/v1/topology?format=xml", "format"},
		{"/api/v1/audit?after=x", "after"},
		{"/api/v1/audit?from=x", "from"},
		{"/api/v1/audit?to=x", "to"},
		{"/api/v1/preemptions?limit=0", "limit"},
		{"/api/v1/preemptions?before=0", "before"},
		{"/api/v1/preemptions?team=", "team"},
		{"/api/v1/preemptions?" + teams, "team"},
	} {
		code, body := e.do("GET", c.path, e.admin, nil)
		if code != 400 || !strings.Contains(string(body), `"field":"`+c.field+`"`) {
			short := c.path
			if len(short) > 80 {
				short = short[:80] + "..."
			}
			t.Errorf("%s: %d %s; want a 400 naming %s", short, code, body, c.field)
		}
	}
	for _, ok := range []string{"/api/v1/topology?format=text", "/api/v1/topology?format=json", "/api/v1/tasks?summary=0&limit=5",
		"/api/v1/tasks?q=" + strings.Repeat("a", maxSearchLen)} {
		if code, body := e.do("GET", ok, e.admin, nil); code != 200 {
			t.Errorf("%s: %d %s", ok, code, body)
		}
	}
}
