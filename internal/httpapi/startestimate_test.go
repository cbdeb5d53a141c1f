package httpapi

import (
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/testwait"
)

const delayCluster = `
nodeGroups:
  - {name: p5, instanceType: ml.p5.48xlarge, count: 4, topology: {nodesPerLayer3: 2, layer3PerLayer2: 2, layer2PerLayer1: 1}}
policy:
  taskPrioritization: TaskRanking
  preemption: Immediate
  preemptionDelaySeconds: 600
  priorityClasses: [{name: inference, weight: 90}, {name: training, weight: 70}]
teams:
  - {name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
  - {name: beta, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
`

// TestStartEstimate: a waiting task's page and its queue row say when it
// can start only where its wait reason names a time (here the preemption
// delay's end, before which it may not reclaim the node another team
// borrowed; a-more, over its quota, may search for victims to borrow
// with once it ends), and otherwise (TestEstimateStart) that no estimate
// can be made and why; never a number made
// up from the running tasks, which declare no end.
func TestStartEstimate(t *testing.T) {
	e := newEnv(t, delayCluster)
	big := spec("a-big", "alpha", "sleep", "600")
	big.Nodes = 3 // borrows one of beta's nodes
	e.mustDo("POST", "/api/v1/tasks", e.admin, big, 201, nil)
	e.waitState("a-big", model.StateRunning, 10*time.Second)
	serve := spec("b-serve", "beta", "sleep", "60")
	serve.Nodes = 2 // within beta's quota; it may reclaim once the delay ends
	e.mustDo("POST", "/api/v1/tasks", e.admin, serve, 201, nil)
	more := spec("a-more", "alpha", "sleep", "60")
	e.mustDo("POST", "/api/v1/tasks", e.admin, more, 201, nil)
	member := e.token(model.RoleMember, "beta")
	for _, c := range []struct {
		task, token string
		delayed     bool
	}{{"b-serve", member, true}, {"a-more", e.admin, true}} {
		var v apitypes.Task
		_ = testwait.Until(10*time.Second, 20*time.Millisecond, func() bool {
			e.mustDo("GET", "/api/v1/tasks/"+c.task, c.token, nil, 200, &v)
			return v.Reason != nil
		})
		if v.Reason == nil || v.Start == nil {
			t.Fatalf("%s: no reason or start: %+v", c.task, v)
		}
		t.Logf("%s waits: %s; start %+v", c.task, v.Why, *v.Start)
		if c.delayed {
			if v.Reason.At == 0 || !v.Start.NotBefore.Equal(time.Unix(v.Reason.At, 0)) || !strings.Contains(v.Start.Basis, "preemption delay") {
				t.Errorf("%s inside the preemption delay: reason %+v, start %+v", c.task, *v.Reason, *v.Start)
			}
			if d := time.Until(v.Start.NotBefore); d < 500*time.Second || d > 601*time.Second {
				t.Errorf("%s: not before %v, %v from now; the delay is 600 s", c.task, v.Start.NotBefore, d)
			}
		} else if !v.Start.NotBefore.IsZero() || !strings.HasPrefix(v.Start.Basis, "no estimate: ") || !strings.Contains(v.Start.Basis, "declare no end time") {
			t.Errorf("%s: start %+v, want no estimate and why", c.task, *v.Start)
		}
		var q struct{ Pending []apitypes.Task }
		e.mustDo("GET", "/api/v1/queue?limit=10&team="+v.Team, c.token, nil, 200, &q)
		if len(q.Pending) == 0 || q.Pending[0].Start == nil || *q.Pending[0].Start != *v.Start {
			t.Errorf("%s's queue row: %+v, want start %+v", c.task, q.Pending, *v.Start)
		}
	}
	var running apitypes.Task
	e.mustDo("GET", "/api/v1/tasks/a-big", e.admin, nil, 200, &running)
	if running.Start != nil {
		t.Errorf("a running task has a start estimate: %+v", running.Start)
	}
}
