package scenario

import (
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/config"
)

const tiny = `
name: tiny
cluster:
  nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]
  teams: [{name: a, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}]
steps:
  - at: 0s
    submit: [{name: x, team: a, instanceType: ml.p5.48xlarge}]
`

func parse(t *testing.T, text string) *File {
	t.Helper()
	var f File
	if err := config.Decode([]byte(text), &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

// TestCheck: a run passes when its trace equals the expect block (expected
// refusals included); it fails when the trace differs, or when an input is
// refused and no expect block records it.
func TestCheck(t *testing.T) {
	f := parse(t, tiny)
	trace, err := Run(f, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(f, trace); err != nil {
		t.Fatalf("no expect block, nothing refused: %v", err)
	}
	f.Expect = trace
	if err := Check(f, trace); err != nil {
		t.Fatalf("the expected trace: %v", err)
	}
	f.Expect = strings.Replace(trace, "p5-0", "p5-9", 1)
	if err := Check(f, trace); err == nil || !strings.Contains(err.Error(), "want:") {
		t.Fatalf("a different trace passed: %v", err)
	}

	bad := parse(t, tiny+"  - at: 1m\n    cancel: [nosuch]\n")
	trace, _ = Run(bad, Options{Check: true})
	if err := Check(bad, trace); err == nil || !strings.Contains(err.Error(), "cancel nosuch") {
		t.Fatalf("a refused input without an expect block passed: %v", err)
	}
	bad.Expect = trace
	if err := Check(bad, trace); err != nil {
		t.Fatalf("a refusal the expect block records: %v", err)
	}
}

// TestStepsOutOfOrder: a step earlier than the one before it is refused,
// naming both.
func TestStepsOutOfOrder(t *testing.T) {
	f := parse(t, tiny+"  - at: 2m\n    complete: [x]\n  - at: 1m\n    cancel: [x]\n")
	if _, err := Run(f, Options{}); err == nil || !strings.Contains(err.Error(), "step 3 at 1m0s comes after step 2 at 2m0s") {
		t.Fatalf("out-of-order steps: %v", err)
	}
}
