package httpapi

import (
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/usage"
)

// TestUsageReportForAnotherTeamIsForbidden: a member asking for another
// team's usage gets 403, as for that team's preemptions and tasks (it used
// to get 200 and its own rows, the team ignored); its own team, or no team,
// gives its own rows; an admin's ?team= selects that team's rows; an empty
// team is a 400 naming the field.
func TestUsageReportForAnotherTeamIsForbidden(t *testing.T) {
	e := newEnv(t, testCluster)
	alpha := e.token(model.RoleMember, "alpha")
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("a1", "alpha", "true"), 201, nil)
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("b1", "beta", "true"), 201, nil)
	e.waitState("a1", model.StateSucceeded, 30*time.Second)
	e.waitState("b1", model.StateSucceeded, 30*time.Second)

	const report = "/api/v1/usage/report?from=2026-01-01&to=2262-01-01&type=detailed"
	teamsOf := func(token, query string) []string {
		t.Helper()
		var rep usage.Report
		e.mustDo("GET", report+query, token, nil, 200, &rep)
		var teams []string
		for _, row := range rep.Detailed {
			teams = append(teams, row.Team)
		}
		return teams
	}
	if got := strings.Join(teamsOf(e.admin, ""), ","); got != "alpha,beta" && got != "beta,alpha" {
		t.Fatalf("an admin's report: teams %q, want alpha and beta", got)
	}
	if got := strings.Join(teamsOf(e.admin, "&team=beta"), ","); got != "beta" {
		t.Fatalf("an admin's report for beta: teams %q", got)
	}
	for _, q := range []string{"", "&team=alpha"} {
		if got := strings.Join(teamsOf(alpha, q), ","); got != "alpha" {
			t.Fatalf("alpha's member, %q: teams %q, want alpha only", q, got)
		}
	}
	for _, q := range []string{"&team=beta", "&team=alpha&team=beta"} {
		if code, out := e.do("GET", report+q, alpha, nil); code != 403 || !strings.Contains(string(out), "forbidden") {
			t.Fatalf("alpha's member asking %q: %d %s, want 403", q, code, out)
		}
	}
	if code, out := e.do("GET", report+"&team=", e.admin, nil); code != 400 || !strings.Contains(string(out), `"team"`) {
		t.Fatalf("an empty team: %d %s, want a 400 naming team", code, out)
	}
}
