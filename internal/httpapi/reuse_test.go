package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestFinishedNameReuse: a finished task's name may be submitted again by its
// team (the earlier task's record stays listed, and the name's events are
// the new task's); another team gets a 409 naming the fix; a live name gets
// a 409. The engine goes on serving throughout (it used to stop on a UNIQUE
// constraint).
func TestFinishedNameReuse(t *testing.T) {
	e := newEnv(t, testCluster)
	body := func(team string) map[string]any {
		return map[string]any{"name": "again", "team": team, "instanceType": "ml.p5.48xlarge", "command": []string{"true"}}
	}
	e.mustDo("POST", "/api/v1/tasks", e.admin, body("alpha"), 201, nil)
	e.waitState("again", "Succeeded", 20*time.Second)

	e.mustDo("POST", "/api/v1/tasks", e.admin, body("alpha"), 201, nil)
	e.waitState("again", "Succeeded", 20*time.Second)

	code, b := e.do("POST", "/api/v1/tasks", e.admin, body("beta"))
	if code != 409 || !strings.Contains(string(b), `taken by team \"alpha\"`) || !strings.Contains(string(b), "choose another name") {
		t.Fatalf("another team's reuse: %d %s", code, b)
	}
	live := map[string]any{"name": "live", "team": "alpha", "instanceType": "ml.p5.48xlarge", "command": []string{"sleep", "60"}}
	e.mustDo("POST", "/api/v1/tasks", e.admin, live, 201, nil)
	if code, b := e.do("POST", "/api/v1/tasks", e.admin, live); code != 409 || !strings.Contains(string(b), "choose another name") {
		t.Fatalf("a live name: %d %s", code, b)
	}
	live["team"] = "beta"
	if code, b := e.do("POST", "/api/v1/tasks", e.admin, live); code != 409 || !strings.Contains(string(b), `taken by team \"alpha\"`) {
		t.Fatalf("another team's live name: %d %s", code, b)
	}

	var list struct {
		Tasks []struct{ Name, State string }
	}
	e.mustDo("GET", "/api/v1/tasks?team=alpha", e.admin, nil, 200, &list)
	n := 0
	for _, x := range list.Tasks {
		if x.Name == "again" && x.State == "Succeeded" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("both tasks named again are kept: %+v", list.Tasks)
	}
	var evs struct {
		Events []struct{ Kind string }
	}
	e.mustDo("GET", "/api/v1/tasks/again/events", e.admin, nil, 200, &evs)
	submitted := 0
	for _, ev := range evs.Events {
		if ev.Kind == "Submitted" {
			submitted++
		}
	}
	if submitted != 1 {
		t.Fatalf("the name's events are the newest task's only: %+v", evs.Events)
	}
	var ready map[string]string
	code, b = e.do("GET", "/readyz", "", nil)
	_ = json.Unmarshal(b, &ready)
	if code != 200 || ready["status"] != "ready" {
		t.Fatalf("readyz after the refusals: %d %s", code, b)
	}
	e.mustDo("POST", "/api/v1/tasks/live/cancel", e.admin, nil, 200, nil)
}

// TestReusedNameStartsFresh: a new task of a finished task's name does not
// start from that task's checkpoints unless it sets resumeCheckpoints.
func TestReusedNameStartsFresh(t *testing.T) {
	e := newEnv(t, testCluster)
	submit := func(script string, resume bool) {
		t.Helper()
		e.mustDo("POST", "/api/v1/tasks", e.admin, checkpointSpec("ck", "alpha", script, resume), 201, nil)
		e.waitState("ck", "Succeeded", 20*time.Second)
	}
	submit("echo one > state && touch .taskgov-checkpoint", false)
	submit("test ! -e state && echo two > state", false)
	submit("grep -qx two state", true)
}

// checkpointSpec is a task of team's named name that runs script in its
// checkpoint directory, resuming the name's earlier checkpoints if resume.
func checkpointSpec(name, team, script string, resume bool) map[string]any {
	return map[string]any{"name": name, "team": team, "instanceType": "ml.p5.48xlarge",
		"command": []string{"sh", "-c", script}, "resumeCheckpoints": resume}
}
