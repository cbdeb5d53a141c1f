package httpapi

import (
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
)

// TestRetriesBackOff (issue 14, finding 9): a task that fails at once with
// a large maxRetry restarts a few times in seconds, not hundreds, and says
// why it waits.
func TestRetriesBackOff(t *testing.T) {
	e := newEnv(t, testCluster)
	s := spec("flaky", "alpha", "false")
	s.AutoResume, s.MaxRetry = true, 100
	e.mustDo("POST", "/api/v1/tasks", e.admin, s, 201, nil)
	time.Sleep(3500 * time.Millisecond)
	var v apitypes.Task
	e.mustDo("GET", "/api/v1/tasks/flaky", e.admin, nil, 200, &v)
	// Backoff 1 s, 2 s, 4 s: by 3.5 s at most 3 failures (before: hundreds).
	if v.Retries < 1 || v.Retries > 3 {
		t.Fatalf("after 3.5 s: %d retries (%s)", v.Retries, v.Message)
	}
	t.Logf("after 3.5 s: %d retries; %s %s", v.Retries, v.State, v.Why)
}
