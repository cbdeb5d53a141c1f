package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// TestQueuePages: ?offset=&limit= return one page of the queue, team by team
// in queue order, with the total and the next offset; bad paging is a 400
// naming the field.
func TestQueuePages(t *testing.T) {
	e := newEnv(t, `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]
teams:
  - {name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}
  - {name: beta, quotas: [{instanceType: ml.p5.48xlarge, count: 0}]}
`)
	e.mustDo("POST", "/api/v1/tasks", e.admin, model.TaskSpec{Name: "runner", Team: "alpha", InstanceType: "ml.p5.48xlarge",
		Command: []string{"sleep", "30"}}, 201, nil)
	e.waitState("runner", "Running", 10*time.Second)
	for k := 0; k < 5; k++ {
		for _, team := range []string{"alpha", "beta"} {
			e.mustDo("POST", "/api/v1/tasks", e.admin, model.TaskSpec{Name: fmt.Sprintf("%s-%d", team, k), Team: team,
				InstanceType: "ml.p5.48xlarge", Command: []string{"true"}}, 201, nil)
		}
	}
	type page struct {
		Pending []apitypes.Task
		Total   int
		Next    *int
	}
	var all struct{ Pending []apitypes.Task }
	deadline := time.Now().Add(10 * time.Second)
	for len(all.Pending) != 10 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		e.mustDo("GET", "/api/v1/queue", e.admin, nil, 200, &all)
	}
	if len(all.Pending) != 10 {
		t.Fatalf("queue %+v; want 10 waiting", all.Pending)
	}
	var got []apitypes.Task
	off := 0
	for {
		var p page
		e.mustDo("GET", fmt.Sprintf("/api/v1/queue?offset=%d&limit=3", off), e.admin, nil, 200, &p)
		if p.Total != 10 {
			t.Fatalf("total %d, want 10", p.Total)
		}
		got = append(got, p.Pending...)
		if p.Next == nil {
			break
		}
		off = *p.Next
	}
	if len(got) != 10 {
		t.Fatalf("pages held %d tasks, want 10", len(got))
	}
	for i := range got {
		if got[i].Name != all.Pending[i].Name || got[i].Position != all.Pending[i].Position || got[i].Why != all.Pending[i].Why {
			t.Fatalf("page entry %d is %s #%d, the whole queue has %s #%d", i, got[i].Name, got[i].Position, all.Pending[i].Name, all.Pending[i].Position)
		}
	}
	var beta page
	e.mustDo("GET", "/api/v1/queue?team=beta&offset=4&limit=10", e.admin, nil, 200, &beta)
	if beta.Total != 5 || len(beta.Pending) != 1 || beta.Pending[0].Name != "beta-4" || beta.Pending[0].Position != 5 || beta.Next != nil {
		t.Fatalf("beta's last page %+v", beta)
	}
	var one apitypes.Task
	e.mustDo("GET", "/api/v1/tasks/beta-2", e.admin, nil, 200, &one)
	if one.Position != 3 || one.Reason == nil {
		t.Fatalf("beta-2: position %d reason %v", one.Position, one.Reason)
	}
	for _, bad := range []string{"limit=0", "limit=1001", "offset=-1", "limit=x"} {
		if code, body := e.do("GET", "/api/v1/queue?"+bad, e.admin, nil); code != 400 {
			t.Fatalf("?%s: %d %s; want 400", bad, code, body)
		}
	}
}
