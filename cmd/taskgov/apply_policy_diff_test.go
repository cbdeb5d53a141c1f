package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApplyPrintsPolicyChanges: apply -f against a real server says which
// priority classes it added, removed or reweighted and which settings it
// changed or reset to their defaults; it printed only "policy configured",
// so a file that dropped a class did so silently.
func TestApplyPrintsPolicyChanges(t *testing.T) {
	dir := cliServer(t)
	f := filepath.Join(dir, "edited.yaml")
	// Drops fine-tuning, reweights training, adds research, omits preemption
	// (Immediate on the server: reset to Payback), sets victimOrder.
	_ = os.WriteFile(f, []byte(strings.Replace(strings.Replace(cliCluster,
		"  preemption: Immediate\n", "  victimOrder: MostRecentlyStarted\n", 1),
		"{name: training, weight: 70}, {name: fine-tuning, weight: 50}", "{name: training, weight: 60}, {name: research, weight: 40}", 1)), 0o644)
	out := mustCLI(t, "apply", "-f", f)
	for _, want := range []string{
		"policy configured\n",
		"  priority class training: weight 70 -> 60\n",
		"  priority class research added (weight 40)\n",
		"  priority class fine-tuning removed (weight 50)\n",
		"  victimOrder: LeastLostWork -> MostRecentlyStarted\n",
		"  preemption: Immediate -> Payback (default)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("apply output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "inference") || strings.Contains(out, "taskPrioritization") {
		t.Errorf("apply lists what did not change:\n%s", out)
	}
	if again := mustCLI(t, "apply", "-f", f); !strings.Contains(again, "policy unchanged") || strings.Contains(again, "  ") {
		t.Errorf("second apply:\n%s", again)
	}
}
