package httpapi

import (
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// TestTaskRowsSayWhyTheyWait: a pending task's row in the task list carries
// its place in its team's queue and the sentence saying why it waits, the
// same as GET /api/v1/tasks/{name}; other rows carry neither.
func TestTaskRowsSayWhyTheyWait(t *testing.T) {
	e := newEnv(t, testCluster)
	big := spec("a-big", "alpha", "sleep", "60")
	big.Nodes = 3
	e.mustDo("POST", "/api/v1/tasks", e.admin, big, 201, nil)
	e.waitState("a-big", model.StateRunning, 10*time.Second)
	serve := spec("b-serve", "beta", "sleep", "60")
	serve.Nodes, serve.Priority = 2, "inference"
	e.mustDo("POST", "/api/v1/tasks", e.admin, serve, 201, nil)
	e.waitState("a-big", model.StatePending, 10*time.Second)
	var one apitypes.Task
	e.mustDo("GET", "/api/v1/tasks/a-big", e.admin, nil, 200, &one)
	if one.Why == "" || one.Position != 1 {
		t.Fatalf("a-big: position %d, why %q", one.Position, one.Why)
	}
	var pg taskPage
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		pg = taskPage{}
		e.mustDo("GET", "/api/v1/tasks?sort=name", e.admin, nil, 200, &pg)
		if len(pg.Tasks) == 2 && pg.Tasks[0].State == model.StatePending || time.Now().After(deadline) {
			break
		}
	}
	if len(pg.Tasks) != 2 {
		t.Fatalf("rows %+v", pg.Tasks)
	}
	a, b := pg.Tasks[0], pg.Tasks[1]
	if a.Name != "a-big" || a.Position != one.Position || a.Why != one.Why || !strings.HasPrefix(a.Why, "waiting: ") {
		t.Errorf("a-big's row: position %d, why %q; its task says %d, %q", a.Position, a.Why, one.Position, one.Why)
	}
	if b.Name != "b-serve" || b.Position != 0 || b.Why != "" {
		t.Errorf("b-serve (running) row: position %d, why %q", b.Position, b.Why)
	}
}
