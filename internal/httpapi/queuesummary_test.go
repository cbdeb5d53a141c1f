package httpapi

import (
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// TestQueueSummary: ?summary=1 counts the pending tasks by team, instance
// type and reason with the GPUs they ask (all pods, whole nodes counted as
// the type's GPUs), agrees with the listed queue, shows a member only its
// team, and refuses a summary value it does not know, naming the field.
func TestQueueSummary(t *testing.T) {
	e := newEnv(t, `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 3}]
teams:
  - {name: alpha, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}
  - {name: beta, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 0}]}
`)
	e.mustDo("POST", "/api/v1/tasks", e.admin, model.TaskSpec{Name: "runner", Team: "alpha", InstanceType: "ml.p5.48xlarge",
		Command: []string{"sleep", "30"}}, 201, nil)
	e.waitState("runner", "Running", 10*time.Second)
	submit := func(name, team string, nodes int, per model.Request) {
		e.mustDo("POST", "/api/v1/tasks", e.admin, model.TaskSpec{Name: name, Team: team, InstanceType: "ml.p5.48xlarge", Nodes: nodes,
			PerNode: per, Command: []string{"true"}}, 201, nil)
	}
	submit("a-two", "alpha", 2, model.Request{})         // 16 GPUs
	submit("a-one", "alpha", 1, model.Request{GPUs: 2})  // 2 GPUs
	submit("b-one", "beta", 1, model.Request{})          // 8 GPUs
	submit("b-three", "beta", 3, model.Request{GPUs: 1}) // 3 GPUs
	var all struct{ Pending []apitypes.Task }
	deadline := time.Now().Add(10 * time.Second)
	for len(all.Pending) != 4 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		e.mustDo("GET", "/api/v1/queue", e.admin, nil, 200, &all)
	}
	var sum struct{ Summary []apitypes.QueueGroup }
	e.mustDo("GET", "/api/v1/queue?summary=1", e.admin, nil, 200, &sum)
	// The listed queue, counted the same way.
	type key struct{ team, reason string }
	want := map[key][3]int64{}
	gpus := map[string]int64{"a-two": 16, "a-one": 2, "b-one": 8, "b-three": 3}
	for _, p := range all.Pending {
		k := key{p.Team, string(p.Reason.Code)}
		w := want[k]
		if w[0] == 0 || gpus[p.Name] < w[2] {
			w[2] = gpus[p.Name]
		}
		w[0]++
		w[1] += gpus[p.Name]
		want[k] = w
	}
	if len(sum.Summary) != len(want) {
		t.Fatalf("summary %+v; the queue %+v counts to %v", sum.Summary, all.Pending, want)
	}
	for _, g := range sum.Summary {
		w := want[key{g.Team, string(g.Reason)}]
		if g.InstanceType != "ml.p5.48xlarge" || int64(g.Tasks) != w[0] || g.GPUs != w[1] || g.MinGPUs != w[2] {
			t.Errorf("group %+v; want tasks, GPUs, smallest %v", g, w)
		}
	}
	member := e.token(string(model.RoleMember), "beta")
	var mine struct{ Summary []apitypes.QueueGroup }
	e.mustDo("GET", "/api/v1/queue?summary=1", member, nil, 200, &mine)
	for _, g := range mine.Summary {
		if g.Team != "beta" {
			t.Errorf("a member of beta sees %+v", g)
		}
	}
	if len(mine.Summary) == 0 {
		t.Error("a member of beta sees no group of its own")
	}
	if code, body := e.do("GET", "/api/v1/queue?summary=yes", e.admin, nil); code != 400 {
		t.Fatalf("?summary=yes: %d %s; want 400", code, body)
	}
}
