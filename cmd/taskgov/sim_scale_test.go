package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestClusterScaleWarnsOverPromised: scaling rounds each team's quota to at
// least a node, so on a small type the quotas can add up to more nodes than
// it has; sim run says so, naming the type, and says nothing when they fit.
func TestClusterScaleWarnsOverPromised(t *testing.T) {
	dir := t.TempDir()
	trace, cluster := filepath.Join(dir, "t.csv"), filepath.Join(dir, "c.yaml")
	// 32 nodes, four teams of 8: scaled by 0.05, 2 nodes and four quotas of 1.
	mustCLI(t, "sim", "gen", "--jobs", "50", "--gpus", "256", "--trace", trace, "--cluster", cluster)
	text := mustCLI(t, "sim", "run", "--cluster", cluster, "--trace", trace, "--cluster-scale", "0.05", "--out", filepath.Join(dir, "a"))
	if !strings.Contains(text, "warning: --cluster-scale: the teams' quotas of ml.p5.48xlarge add up to 4 nodes, more than its 2") {
		t.Fatalf("no warning for over-promised quotas:\n%s", text)
	}
	text = mustCLI(t, "sim", "run", "--cluster", cluster, "--trace", trace, "--cluster-scale", "0.5", "--out", filepath.Join(dir, "b"))
	if strings.Contains(text, "warning") {
		t.Fatalf("a warning where the quotas fit:\n%s", text)
	}
}
