package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScenarioRunExitCode: `taskgov scenario run` fails (exit 1) when the
// trace differs from the file's expect block or an input is refused that no
// expect block records, and passes a file whose expect block matches.
func TestScenarioRunExitCode(t *testing.T) {
	base := `
name: exit-codes
cluster:
  nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]
  teams: [{name: a, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}]
steps:
  - at: 0s
    submit: [{name: x, team: a, instanceType: ml.p5.48xlarge}]
`
	cases := []struct {
		name, text string
		fails      bool
		says       string
	}{
		{"matches", base + "expect: |\n  @0s\n    admit x (a) on p5-0\n", false, ""},
		{"differs", base + "expect: |\n  @0s\n    admit x (a) on p5-1\n", true, "differs from the file's expect block"},
		{"refused", base + "  - at: 1m\n    cancel: [nosuch]\n", true, "refused"},
		{"out of order", base + "  - at: 2m\n    complete: [x]\n  - at: 1m\n    cancel: [x]\n", true, "time order"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.yaml")
			_ = os.WriteFile(path, []byte(c.text), 0o644)
			root := newRootCmd()
			root.SetArgs([]string{"scenario", "run", path})
			root.SetOut(new(strings.Builder))
			err := root.Execute()
			if c.fails != (err != nil) || (err != nil && (exitCode(err) != exitFailure || !strings.Contains(err.Error(), c.says))) {
				t.Fatalf("err %v (exit %d)", err, map[bool]int{true: exitCode(err)}[err != nil])
			}
		})
	}
}
