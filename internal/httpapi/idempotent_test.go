package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
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
		req, _ := http.NewRequest("POST", e.url+"/api/v1/tasks", bytes.NewReader(j))
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
	code, h, b = post(e.admin, "another-submission", body) // a new key: a new task
	if code != 201 || h.Get(ReplayedHeader) != "" || json.Unmarshal(b, &again) != nil || again.Seq == first.Seq {
		t.Fatalf("a new key: %d %v %s", code, h, b)
	}
}
