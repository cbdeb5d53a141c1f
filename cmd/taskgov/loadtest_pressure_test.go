package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLoadtestPressure runs the loadtest's hostile-client phases at a small
// scale: they run, hold their connections and report each phase (the
// figures at full scale are in docs/BENCHMARKS.md).
func TestLoadtestPressure(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server process")
	}
	bin := buildBinary(t)
	out, err := exec.Command(bin, "loadtest", "--tasks", "200", "--clients", "4", "--idle-conns", "20", "--slow-conns", "5",
		"--sse-streams", "20", "--sse-team", "load", "--health-probes", "50").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"no pressure:", "20 idle + 5 slow-body conns:", "held open at the end: 20 idle, 5 slow", "20 event streams (team load):"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("\n%s", out)
}
