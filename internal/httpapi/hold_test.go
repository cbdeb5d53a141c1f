package httpapi

import (
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// holdCluster over-commits 2 nodes: small (DontLend) fills them within its
// quota, and big's gang, also within quota, has no victims; with a zero
// starvation bound it holds both nodes at once.
const holdCluster = `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 2}]
policy: {starvationBoundSeconds: 0}
teams:
  - {name: small, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
  - {name: big, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
`

// TestNodesShowTheirHold: the node list names the task a held node drains
// for, and the queue says why the gang waits.
func TestNodesShowTheirHold(t *testing.T) {
	e := newEnv(t, holdCluster)
	for _, name := range []string{"s1", "s2"} {
		e.mustDo("POST", "/api/v1/tasks", e.admin, model.TaskSpec{Name: name, Team: "small", InstanceType: "ml.p5.48xlarge",
			Command: []string{"sleep", "30"}}, 201, nil)
		e.waitState(name, "Running", 10*time.Second)
	}
	e.mustDo("POST", "/api/v1/tasks", e.admin, model.TaskSpec{Name: "gang", Team: "big", InstanceType: "ml.p5.48xlarge", Nodes: 2,
		Command: []string{"true"}}, 201, nil)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var out struct{ Nodes []apitypes.Node }
		e.mustDo("GET", "/api/v1/nodes", e.admin, nil, 200, &out)
		held := 0
		for _, n := range out.Nodes {
			if n.HeldFor == "gang" {
				held++
			}
		}
		if held == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nodes %+v; want both held for gang", out.Nodes)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var q struct{ Pending []apitypes.Task }
	e.mustDo("GET", "/api/v1/queue", e.admin, nil, 200, &q)
	if len(q.Pending) != 1 || q.Pending[0].Reason == nil || q.Pending[0].Reason.Code != model.Draining || !strings.Contains(q.Pending[0].Why, "reserved") {
		t.Fatalf("queue %+v", q.Pending)
	}
}
