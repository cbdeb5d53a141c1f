package metrics

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/taskgov/taskgov/internal/kube"
)

// TestGrafanaDashboardUsesRealMetrics keeps deploy/grafana/taskgov.json true:
// every taskgov_* name its queries use is one this package exports.
func TestGrafanaDashboardUsesRealMetrics(t *testing.T) {
	m := New(func() Snapshot {
		return Snapshot{QueueListed: true, Pending: []Pending{{"a", "NoCapacity", 2}}, PendingByTeam: []TeamPending{{"a", 2}}, Usage: []Usage{{"a", "ml.p5.48xlarge", 16, 8, 0, 8}},
			Capacity: []Capacity{{"ml.p5.48xlarge", 32, 8, 4, 4, 2}}}
	})
	m.Admitted("a", false, time.Minute)
	m.Preempted("Reclaim", 7200)
	m.Cycle(time.Millisecond)
	// The server registers the Kubernetes request counter in Kubernetes mode.
	kubeRequests := kube.NewRequestCounter()
	m.Registry.MustRegister(kubeRequests.Vec)
	kubeRequests.Vec.WithLabelValues("create", "pods", "201").Inc()
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, f := range families {
		exported[f.GetName()] = true
	}
	if n := testutil.ToFloat64(m.lostGPUHours.WithLabelValues("Reclaim")); n != 2 {
		t.Fatalf("lost GPU-hours %v, want 2", n)
	}
	b, err := os.ReadFile("../../deploy/grafana/taskgov.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash map[string]any
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	for _, name := range regexp.MustCompile(`taskgov_[a-z_]+`).FindAllString(string(b), -1) {
		base := regexp.MustCompile(`_(bucket|count|sum)$`).ReplaceAllString(name, "")
		if !exported[base] {
			t.Errorf("the dashboard queries %s, which is not exported", name)
		}
	}
}
