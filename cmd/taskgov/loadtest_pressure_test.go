package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadtestPressure runs the loadtest's hostile-client phases at a small
// scale: they run, hold their connections, report each phase with the
// server's CPU per submission and write its profiles, and summarise each
// against the same round's no-pressure phase (the figures at full scale are
// in docs/BENCHMARKS.md).
func TestLoadtestPressure(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server process")
	}
	bin := buildBinary(t)
	prof := t.TempDir()
	out, err := exec.Command(bin, "loadtest", "--tasks", "200", "--clients", "4", "--idle-conns", "20", "--slow-conns", "5",
		"--sse-streams", "20", "--health-probes", "50", "--rounds", "1", "--profile-dir", prof).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"round 1 no pressure:", "round 1 20 idle + 5 slow-body conns:", "25 open at the end",
		"round 1 20 event streams (team watch):", "round 1 20 event streams (team load):", "ms per submission",
		"none of the 20 streams received a submission's event", "each of the 20 streams received all 200 events",
		"summary", "submissions at", "of no pressure (rounds: "} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"server-4.prof", "loadtest-4.prof"} {
		if st, err := os.Stat(filepath.Join(prof, f)); err != nil || st.Size() == 0 {
			t.Errorf("profile %s: %v", f, err)
		}
	}
	t.Logf("\n%s", out)
}
