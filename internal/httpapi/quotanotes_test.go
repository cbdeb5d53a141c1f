package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// TestQuotaWarnings: a team's quota for an instance type the cluster has
// no nodes of was accepted silently and its usage row showed its GPUs as
// lent; quotas larger than the cluster were accepted silently too. Both
// are accepted, with warnings in the answer, and the usage row says the
// type is not present and lends nothing. A member may not set a team, and
// changes nothing.
func TestQuotaWarnings(t *testing.T) {
	e := newEnv(t, testCluster)
	team := `{"name": "gamma", "quotas": [{"instanceType": "ml.g5.12xlarge", "count": 2}, {"instanceType": "ml.p5.48xlarge", "gpus": 40}]}`
	if code, b := e.do("PUT", "/api/v1/teams/gamma", e.token(model.RoleMember, "alpha"), team); code != http.StatusForbidden {
		t.Fatalf("a member setting a team: %d %s", code, b)
	}
	var got struct {
		Name     string
		Warnings []string
	}
	e.mustDo("PUT", "/api/v1/teams/gamma", e.admin, team, 200, &got)
	if got.Name != "gamma" || len(got.Warnings) != 2 || !strings.Contains(got.Warnings[0], "ml.g5.12xlarge: the cluster has no nodes of this type") ||
		!strings.Contains(got.Warnings[1], "40 GPUs is more than the cluster's 32 GPUs") {
		t.Fatalf("warnings: %+v", got)
	}
	var u struct{ Usage []apitypes.Usage }
	e.mustDo("GET", "/api/v1/usage", e.admin, nil, 200, &u)
	seen := 0
	for _, r := range u.Usage {
		if r.Team != "gamma" {
			continue
		}
		seen++
		switch r.InstanceType {
		case "ml.g5.12xlarge":
			if !r.NotPresent || r.QuotaGPUs != 8 || r.LentGPUs != 0 || r.LentVCPU != 0 || r.LentMemGiB != 0 {
				t.Errorf("the absent type's row: %+v", r)
			}
		case "ml.p5.48xlarge":
			if r.NotPresent || r.LentGPUs != 40 {
				t.Errorf("the present type's row: %+v", r)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("gamma's usage rows: %+v", u.Usage)
	}
	// A team the cluster backs: no warnings.
	got.Warnings = nil
	e.mustDo("PUT", "/api/v1/teams/gamma", e.admin, `{"name": "gamma", "quotas": [{"instanceType": "ml.p5.48xlarge", "count": 1}]}`, 200, &got)
	if len(got.Warnings) != 0 {
		t.Fatalf("warnings for a quota the cluster backs: %v", got.Warnings)
	}
}
