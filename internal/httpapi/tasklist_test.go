package httpapi

import (
	"cmp"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

type taskPage struct {
	Tasks   []apitypes.TaskRow
	Total   int
	Summary apitypes.TaskSummary
	Actors  map[string]actor
}

// TestTaskPage: the dashboard's task page sorts, searches and pages on the
// server; its summary ignores the state filter and the search, counts a
// preemption but not a failure retry, and names the token that suspended a
// task.
func TestTaskPage(t *testing.T) {
	e := newEnv(t, testCluster)
	flaky := spec("a-flaky", "alpha", "sh", "-c", "exit 3")
	flaky.AutoResume, flaky.MaxRetry = true, 1
	e.mustDo("POST", "/api/v1/tasks", e.admin, flaky, 201, nil)
	e.waitState("a-flaky", model.StateFailed, 10*time.Second)
	big := spec("a-big", "alpha", "sleep", "60")
	big.Nodes = 3
	e.mustDo("POST", "/api/v1/tasks", e.admin, big, 201, nil)
	e.waitState("a-big", model.StateRunning, 10*time.Second)
	serve := spec("b-serve", "beta", "sleep", "60")
	serve.Nodes, serve.Priority = 2, "inference"
	e.mustDo("POST", "/api/v1/tasks", e.admin, serve, 201, nil)
	e.waitState("a-big", model.StatePending, 10*time.Second)
	small := spec("b-small", "beta", "sleep", "60")
	small.PerNode = model.Request{GPUs: 1}
	e.mustDo("POST", "/api/v1/tasks", e.admin, small, 201, nil)
	member := e.token(model.RoleMember, "beta")
	e.mustDo("POST", "/api/v1/tasks/b-small/suspend", member, nil, 200, nil)
	e.waitState("b-small", model.StateSuspended, 10*time.Second)

	// The page reads a copy of the task list that task events refresh; they
	// are published a moment after the caller's answer.
	var pg taskPage
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		pg = taskPage{}
		e.mustDo("GET", "/api/v1/tasks?sort=name&order=desc&limit=2&summary=1", e.admin, nil, 200, &pg)
		if pg.Summary.Counts[model.StateSuspended] == 1 || time.Now().After(deadline) {
			break
		}
	}
	if pg.Total != 4 || len(pg.Tasks) != 2 || pg.Tasks[0].Name != "b-small" || pg.Tasks[1].Name != "b-serve" {
		t.Fatalf("first page by name, descending: total %d, %+v", pg.Total, pg.Tasks)
	}
	if r := pg.Tasks[0]; r.GPUs != 1 || r.VCPU != 24 || r.MemoryGiB != 256 {
		t.Errorf("a 1-GPU request on p5 is 1 GPU, 24 vCPU, 256 GiB; row says %d, %v, %v", r.GPUs, r.VCPU, r.MemoryGiB)
	}
	if r := pg.Tasks[1]; r.GPUs != 16 || r.VCPU != 384 || r.PriorityWeight != 90 {
		t.Errorf("two whole p5 nodes: row says %d GPUs, %v vCPU, weight %d", r.GPUs, r.VCPU, r.PriorityWeight)
	}
	var evs struct {
		Events []model.Event
		Actors map[string]actor
	}
	e.mustDo("GET", "/api/v1/tasks/b-small/events", member, nil, 200, &evs)
	var id string
	for _, ev := range evs.Events {
		id = cmp.Or(id, tokenID.FindString(ev.Message))
	}
	if a, ok := evs.Actors[id]; id == "" || !ok || a.Role != model.RoleMember || a.Team != "beta" {
		t.Errorf("events %+v: actors %+v do not name the member of beta", evs.Events, evs.Actors)
	}
	want := map[model.TaskState]int{model.StateFailed: 1, model.StatePending: 1, model.StateRunning: 1, model.StateSuspended: 1}
	if s := pg.Summary; s.Preempted != 1 || len(s.Counts) != len(want) || s.MeanWaitSeconds <= 0 || s.MeanRunSeconds < 0 {
		t.Errorf("summary %+v: want one preempted task (the retry is not one) and counts %v", s, want)
	}
	for k, n := range want {
		if pg.Summary.Counts[k] != n {
			t.Errorf("count %s = %d, want %d", k, pg.Summary.Counts[k], n)
		}
	}
	// The state filter and search narrow the rows, not the summary.
	var run taskPage
	e.mustDo("GET", "/api/v1/tasks?state=Running&q=SERVE&summary=1", e.admin, nil, 200, &run)
	if run.Total != 1 || run.Tasks[0].Name != "b-serve" || run.Summary.Counts[model.StatePending] != 1 {
		t.Errorf("running tasks named *serve*: %+v, summary %+v", run.Tasks, run.Summary)
	}
	var second taskPage
	e.mustDo("GET", "/api/v1/tasks?sort=gpus&offset=3&limit=2", e.admin, nil, 200, &second)
	if second.Total != 4 || len(second.Tasks) != 1 || second.Tasks[0].Name != "a-big" {
		t.Errorf("last page by GPUs: %+v", second.Tasks)
	}
	// A member sees its team only, and asking for another is refused.
	var mine taskPage
	e.mustDo("GET", "/api/v1/tasks?sort=name&summary=1", member, nil, 200, &mine)
	if mine.Total != 2 || mine.Summary.Counts[model.StateFailed] != 0 {
		t.Errorf("member of beta sees %d tasks, summary %+v", mine.Total, mine.Summary)
	}
	if code, _ := e.do("GET", "/api/v1/tasks?sort=name&team=alpha", member, nil); code != 403 {
		t.Errorf("member asks for alpha's tasks: %d", code)
	}
	for q, field := range map[string]string{"sort=colour": "sort", "sort=name&order=up": "order", "offset=-1": "offset", "q=x&limit=0": "limit", "summary=1&state=Bogus": "state"} {
		if code, body := e.do("GET", "/api/v1/tasks?"+q, e.admin, nil); code != 400 || !strings.Contains(string(body), `"field":"`+field+`"`) {
			t.Errorf("?%s: %d %s", q, code, body)
		}
	}
	var me actor
	e.mustDo("GET", "/api/v1/whoami", member, nil, 200, &me)
	if me.Role != model.RoleMember || me.Team != "beta" || me.ID != id {
		t.Errorf("whoami: %+v", me)
	}
}
