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
	wantLines(t, "apply", out,
		"policy configured\n",
		"  priority class training: weight 70 -> 60\n",
		"  priority class research added (weight 40)\n",
		"  priority class fine-tuning removed (weight 50)\n",
		"  victimOrder: LeastLostWork -> MostRecentlyStarted\n",
		"  preemption: Immediate -> Payback (default)\n")
	if strings.Contains(out, "inference") || strings.Contains(out, "taskPrioritization") {
		t.Errorf("apply lists what did not change:\n%s", out)
	}
	if again := mustCLI(t, "apply", "-f", f); !strings.Contains(again, "policy unchanged") || strings.Contains(again, "  ") {
		t.Errorf("second apply:\n%s", again)
	}
}

// TestPolicySetPrintsChanges: policy set -f (and with flags) against a real
// server says what it changed, as apply -f does; it printed only "policy
// updated", so a file that dropped a class or reset a setting did so
// silently. A set that changes nothing says so.
func TestPolicySetPrintsChanges(t *testing.T) {
	dir := cliServer(t)
	f := filepath.Join(dir, "policy.yaml")
	// Drops fine-tuning, reweights training, omits preemption (Immediate
	// on the server: reset to Payback).
	_ = os.WriteFile(f, []byte("taskPrioritization: TaskRanking\npriorityClasses: [{name: inference, weight: 90}, {name: training, weight: 60}]\n"), 0o644)
	out := mustCLI(t, "policy", "set", "-f", f)
	wantLines(t, "policy set -f", out,
		"policy updated\n",
		"  priority class training: weight 70 -> 60\n",
		"  priority class fine-tuning removed (weight 50)\n",
		"  preemption: Immediate -> Payback (default)\n")
	if strings.Contains(out, "inference") || strings.Contains(out, "taskPrioritization") {
		t.Errorf("policy set -f lists what did not change:\n%s", out)
	}
	if again := mustCLI(t, "policy", "set", "-f", f); again != "policy unchanged\n" {
		t.Errorf("the same file again:\n%s", again)
	}
	if out := mustCLI(t, "policy", "set", "--preemption-delay", "30s"); out != "policy updated\n  preemptionDelaySeconds: 0 -> 30\n" {
		t.Errorf("policy set with a flag:\n%s", out)
	}
}

// wantLines fails t for each of wants that out, what a command printed,
// lacks.
func wantLines(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("%s output lacks %q:\n%s", what, want, out)
		}
	}
}
