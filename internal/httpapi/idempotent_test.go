package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlite"
)

// TestSubmissionRetriedAfterItsTaskFinished: a client whose answer was lost
// retries with the same Idempotency-Key after the task already ran; it gets
// the original task (same seq, 201, marked replayed), not a second run.
// Another team's member with the name and key learns nothing; a key that
// is not one is refused; a new key makes a new task.
func TestSubmissionRetriedAfterItsTaskFinished(t *testing.T) {
	e := newEnv(t, testCluster)
	post := func(token, key string, body map[string]any) (int, http.Header, []byte) {
		t.Helper()
		j, _ := json.Marshal(body)
		return postKeyed(t, e, token, key, bytes.NewReader(j))
	}
	body := map[string]any{"name": "once", "team": "alpha", "instanceType": "ml.p5.48xlarge", "command": []string{"true"}}
	var first, again struct{ Seq int64 }
	code, h, b := post(e.admin, "5b1f0c2e-retry", body)
	if code != 201 || h.Get(ReplayedHeader) != "" || json.Unmarshal(b, &first) != nil {
		t.Fatalf("first try: %d %v %s", code, h, b)
	}
	e.waitState("once", "Succeeded", 20*time.Second)

	code, h, b = post(e.admin, "5b1f0c2e-retry", body)
	if code != 201 || h.Get(ReplayedHeader) != "true" || json.Unmarshal(b, &again) != nil || again.Seq != first.Seq {
		t.Fatalf("the retry after the task finished: %d %v %s (first record %d)", code, h, b, first.Seq)
	}
	var list struct{ Tasks []struct{ Name string } }
	e.mustDo("GET", "/api/v1/tasks?team=alpha", e.admin, nil, 200, &list)
	if len(list.Tasks) != 1 {
		t.Fatalf("the retry made another task: %+v", list.Tasks)
	}

	beta := e.token("member", "beta")
	other := map[string]any{"name": "once", "team": "beta", "instanceType": "ml.p5.48xlarge", "command": []string{"true"}}
	if code, _, b := post(beta, "5b1f0c2e-retry", other); code != 409 || strings.Contains(string(b), "alpha") || strings.Contains(string(b), `"seq"`) {
		t.Fatalf("another team's member with the name and key: %d %s", code, b)
	}
	if code, _, b := post(e.admin, "has space", body); code != 400 || !strings.Contains(string(b), "Idempotency-Key") {
		t.Fatalf("a key with a space: %d %s", code, b)
	}
	// The Kubernetes workload controller's keys name an object; a client's
	// key of that form would have its task taken for a workload's (and
	// deleted when a leader starts and finds no such object).
	if code, _, b := post(e.admin, "kubernetes.uid.45dad75a-f99b-4728-af78-b9147dab3109", body); code != 400 || !strings.Contains(string(b), "kubernetes.uid.") {
		t.Fatalf("a key in the workload controller's form: %d %s", code, b)
	}
	code, h, b = post(e.admin, "another-submission", body) // a new key: a new task
	if code != 201 || h.Get(ReplayedHeader) != "" || json.Unmarshal(b, &again) != nil || again.Seq == first.Seq {
		t.Fatalf("a new key: %d %v %s", code, h, b)
	}
}

// unreadableStore is a store whose reads of earlier tasks of a name fail
// while fail is set, as a database that cannot be read fails them.
type unreadableStore struct {
	*sqlite.Store
	fail atomic.Bool
}

func (s *unreadableStore) TasksNamed(ctx context.Context, name string) ([]model.TaskRecord, error) {
	if s.fail.Load() {
		return nil, errors.New("injected: the database cannot be read")
	}
	return s.Store.TasksNamed(ctx, name)
}

func (s *unreadableStore) PriorUse(ctx context.Context, name string) (*model.PriorUse, error) {
	if s.fail.Load() {
		return nil, errors.New("injected: the database cannot be read")
	}
	return s.Store.PriorUse(ctx, name)
}

// TestIdempotencyKeyWithAnotherBody: a key sent again with a different
// body was answered 201 with the first task, the new spec silently
// ignored; it is now 422 naming the key, and nothing is written. A store
// that cannot be read during the key check answers 503 and writes
// nothing; the same body then gets its task.
func TestIdempotencyKeyWithAnotherBody(t *testing.T) {
	st := &unreadableStore{}
	e := newEnvWith(t, testCluster, envOptions{store: func(s *sqlite.Store) engine.Store { st.Store = s; return st }})
	post := func(key, body string) (int, http.Header, string) {
		t.Helper()
		code, h, b := postKeyed(t, e, e.admin, key, strings.NewReader(body))
		return code, h, string(b)
	}
	body := `{"name": "keyed", "team": "alpha", "instanceType": "ml.p5.48xlarge", "command": ["true"], "env": {"A": "1", "B": "2"}}`
	if code, _, b := post("key-1", body); code != 201 {
		t.Fatalf("first: %d %s", code, b)
	}
	e.waitState("keyed", model.StateSucceeded, 20*time.Second)
	// The same submission, spaced and ordered otherwise: a retry.
	same := `{"env": {"B": "2", "A": "1"}, "command": ["true"],   "instanceType": "ml.p5.48xlarge", "team": "alpha", "name": "keyed"}`
	if code, h, b := post("key-1", same); code != 201 || h.Get(ReplayedHeader) != "true" {
		t.Fatalf("the same body in another order: %d %v %s", code, h, b)
	}
	other := strings.Replace(body, `["true"]`, `["false"]`, 1)
	if code, h, b := post("key-1", other); code != 422 || h.Get(ReplayedHeader) != "" || !strings.Contains(b, `\"key-1\"`) ||
		!strings.Contains(b, "different request body") || !strings.Contains(b, "idempotency_key_reused") {
		t.Fatalf("the key with another body: %d %v %s", code, h, b)
	}
	count := func() int {
		var list struct{ Tasks []model.TaskRecord }
		e.mustDo("GET", "/api/v1/tasks?team=alpha&deleted=true", e.admin, nil, 200, &list)
		return len(list.Tasks)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d tasks after the refused body, want 1", n)
	}

	st.fail.Store(true)
	code, h, b := post("key-1", body)
	st.fail.Store(false)
	if code != 503 || h.Get("Retry-After") == "" || !strings.Contains(b, "nothing was changed") {
		t.Fatalf("a retry while the store cannot be read: %d %v %s", code, h, b)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d tasks after the unreadable key check, want 1", n)
	}
	if code, h, b := post("key-1", body); code != 201 || h.Get(ReplayedHeader) != "true" {
		t.Fatalf("the retry once the store reads: %d %v %s", code, h, b)
	}
}

// postKeyed submits body as token with an Idempotency-Key header (none when
// key is empty) and returns the answer's status, headers and body.
func postKeyed(t *testing.T, e *env, token, key string, body io.Reader) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", e.url+"/api/v1/tasks", body)
	req.Header.Set("Authorization", "Bearer "+token)
	if key != "" {
		req.Header.Set(IdempotencyKeyHeader, key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}
