package httpapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestListResponsesAreBounded (issue 14, finding 10): a task list page
// stops near listBudget bytes, with nextAfter to go on, however large each
// record is (and a record cannot exceed the field limits).
func TestListResponsesAreBounded(t *testing.T) {
	e := newEnv(t, testCluster)
	big := strings.Repeat("x", 30<<10)
	for i := 0; i < 200; i++ {
		e.mustDo("POST", "/api/v1/tasks", e.admin, model.TaskSpec{Name: fmt.Sprintf("big-%d", i), Team: "alpha", InstanceType: "ml.p5.48xlarge",
			Priority: "training", Command: []string{"sh", "-c", "sleep 60 #" + big}, Env: map[string]string{"PAD": big}}, 201, nil)
	}
	code, body := e.do("GET", "/api/v1/tasks?limit=1000", e.admin, nil)
	if code != 200 || len(body) > listBudget+listBudget/4 || !strings.Contains(string(body), `"nextAfter"`) {
		t.Fatalf("a list of 200 records of 60 KiB: %d, %d bytes (budget %d), nextAfter present: %v",
			code, len(body), listBudget, strings.Contains(string(body), `"nextAfter"`))
	}
	t.Logf("first page: %d bytes", len(body))
}
