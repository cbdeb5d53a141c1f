package httpapi

import (
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// TestPaybackReasonHidesOtherTeam: a WaitingForPayback reason names the
// victims' team only to a reader who may read that team.
func TestPaybackReasonHidesOtherTeam(t *testing.T) {
	r := model.WaitReason{Code: model.WaitingForPayback, InstanceType: "ml.p5.48xlarge", Detail: model.PaybackReclaim,
		Team: "secret", Need: 5280, Used: 4800, Limit: 8, At: 1767226860}
	for _, c := range []struct {
		p    principal
		sees bool
	}{
		{principal{Role: model.RoleMember, Team: "o"}, false},
		{principal{Role: model.RoleViewer, Team: "o"}, false},
		{principal{Role: model.RoleMember, Team: "secret"}, true},
		{principal{Role: model.RoleAdmin}, true},
		{principal{Role: model.RoleViewer}, true},
	} {
		reason := r
		v := apitypes.Task{Reason: &reason, Why: reason.Message()}
		(&redactor{p: c.p, seen: map[string]bool{}}).task(&v)
		if got := strings.Contains(v.Why, "secret"); got != c.sees || (v.Reason.Team == "secret") != c.sees {
			t.Errorf("%+v: sees the team %v, want %v: %q", c.p, got, c.sees, v.Why)
		}
		if !strings.Contains(v.Why, "will preempt (reclaim)") || !strings.Contains(v.Why, "2026-01-01 00:21 UTC") {
			t.Errorf("%+v: %q", c.p, v.Why)
		}
	}
	if r.Team != "secret" {
		t.Fatal("redaction changed the caller's reason")
	}
}
