package httpapi

import (
	"net/http"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlite"
)

// TestDeleteReusedName: a team may submit a finished task's name again
// without deleting the first task (names stay with the team), so a name
// can have two finished records. Deleting the name must take it out of the
// task list, as HyperPod's delete removes the one job of that name: a name
// that stays listed while GET and DELETE of it answer 404 can never be
// cleared.
func TestDeleteReusedName(t *testing.T) {
	e := newEnv(t, testCluster)
	for range 2 {
		e.mustDo("POST", "/api/v1/tasks", e.admin, spec("twice", "alpha", "true"), 201, nil)
		e.waitState("twice", model.StateSucceeded, 20*time.Second)
	}
	e.mustDo("DELETE", "/api/v1/tasks/twice", e.admin, nil, 200, nil)
	if code, b := e.do("GET", "/api/v1/tasks/twice", e.admin, nil); code != http.StatusNotFound {
		t.Fatalf("reading the deleted name: %d %s", code, b)
	}
	if code, b := e.do("DELETE", "/api/v1/tasks/twice", e.admin, nil); code != http.StatusNotFound {
		t.Fatalf("deleting it again: %d %s", code, b)
	}
	if e.listed("twice", "") || e.listed("twice", "&q=twice") {
		t.Fatal("the deleted name is still listed (its earlier finished task), while GET and DELETE of it answer 404")
	}
}

// TestDeleteReusedNameStoreUnreadable: a delete reads every task of the
// name before it writes; when the store cannot be read it answers 503 and
// marks nothing (the name and its tasks stay listed); once the store reads
// again the same delete takes the name out.
func TestDeleteReusedNameStoreUnreadable(t *testing.T) {
	st := &unreadableStore{}
	e := newEnvWith(t, testCluster, envOptions{store: func(s *sqlite.Store) engine.Store { st.Store = s; return st }})
	for range 2 {
		e.mustDo("POST", "/api/v1/tasks", e.admin, spec("twice", "alpha", "true"), 201, nil)
		e.waitState("twice", model.StateSucceeded, 20*time.Second)
	}
	st.fail.Store(true)
	if code, b := e.do("DELETE", "/api/v1/tasks/twice", e.admin, nil); code != http.StatusServiceUnavailable {
		t.Fatalf("a delete while the store cannot be read: %d %s", code, b)
	}
	st.fail.Store(false)
	var list struct{ Tasks []model.TaskRecord }
	e.mustDo("GET", "/api/v1/tasks?team=alpha&q=twice", e.admin, nil, 200, &list)
	if len(list.Tasks) != 2 {
		t.Fatalf("after the refused delete %d tasks of the name are listed, want both", len(list.Tasks))
	}
	e.mustDo("DELETE", "/api/v1/tasks/twice", e.admin, nil, 200, nil)
	if e.listed("twice", "") {
		t.Fatal("the name is still listed after the delete")
	}
}
