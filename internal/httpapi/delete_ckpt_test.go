package httpapi

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestDeletedNameCheckpoints: deleting a finished task (HyperPod's delete)
// keeps its name's checkpoint rule. The team's next task of the name starts
// with an empty checkpoint directory unless it sets resumeCheckpoints, and
// then it resumes from the deleted task's; another team cannot take the
// deleted name, so it cannot read them with resumeCheckpoints either.
func TestDeletedNameCheckpoints(t *testing.T) {
	e := newEnv(t, testCluster)
	submit := func(script string, resume bool) {
		t.Helper()
		e.mustDo("POST", "/api/v1/tasks", e.admin, checkpointSpec("ck", "alpha", script, resume), 201, nil)
		e.waitState("ck", model.StateSucceeded, 20*time.Second)
		e.mustDo("DELETE", "/api/v1/tasks/ck", e.admin, nil, 200, nil)
	}
	submit("echo one > state && touch .taskgov-checkpoint", false)

	beta := map[string]any{"name": "ck", "team": "beta", "instanceType": "ml.p5.48xlarge",
		"command": []string{"cat", "state"}, "resumeCheckpoints": true}
	if code, b := e.do("POST", "/api/v1/tasks", e.token(model.RoleMember, "beta"), beta); code != http.StatusConflict || strings.Contains(string(b), "alpha") {
		t.Fatalf("another team taking the deleted name: %d %s", code, b)
	}
	submit("test ! -e state && echo two > state && touch .taskgov-checkpoint", false)
	submit("grep -qx two state", true)
}
