package engine

import "testing"

// TestMetricsLendNothingOfAnAbsentType: a quota for an instance type the
// cluster has no nodes of showed on /metrics as GPUs lent.
func TestMetricsLendNothingOfAnAbsentType(t *testing.T) {
	h := newHarnessWith(t, harnessCluster+`  - {name: c, quotas: [{instanceType: ml.g5.12xlarge, count: 2}, {instanceType: ml.p5.48xlarge, count: 1}]}
`, nil)
	seen := 0
	for _, u := range h.e.MetricsSnapshot().Usage {
		if u.Team != "c" {
			continue
		}
		seen++
		if (u.InstanceType == "ml.g5.12xlarge") != (u.Lent == 0) {
			t.Errorf("team c on %s: lent %v", u.InstanceType, u.Lent)
		}
	}
	if seen != 2 {
		t.Fatalf("team c's usage rows: %d", seen)
	}
}
