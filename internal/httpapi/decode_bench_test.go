package httpapi

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// BenchmarkDecodeSubmission: decode's cost for one submission body (the
// API's most frequent write), allocations included.
func BenchmarkDecodeSubmission(b *testing.B) {
	body := `{"name": "llama-pretrain-000123", "team": "research", "instanceType": "ml.p5.48xlarge", "nodes": 2,
		"priority": "training", "command": ["python3", "/work/examples/train.py", "--steps", "200"],
		"autoResume": true, "maxRetry": 2, "nodeSelector": {"app": "llama", "tier": "pretrain"}}`
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("POST", "/api/v1/tasks", strings.NewReader(body))
		var s model.TaskSpec
		if err := decode(httptest.NewRecorder(), r, &s); err != nil {
			b.Fatal(err)
		}
	}
}
