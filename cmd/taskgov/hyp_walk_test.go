package main

import (
	"strings"
	"testing"
)

// The walkthrough checks of the hyp CLI: command lines of HyperPod's docs
// run through hyp's entry point against a real server, each for a fault
// a user met.

// TestHypOperatorLogsReusedName: a name submitted twice (the first job
// deleted) lists two tasks; get-operator-logs printed the name's events
// once per task, so every line twice.
func TestHypOperatorLogsReusedName(t *testing.T) {
	cliServerWith(t, walkthroughCluster)
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	create := []string{"create", "hyp-pytorch-job", "--job-name", "again", "--namespace", "hyperpod-ns-team-a",
		"--image", "pytorch/pytorch:latest", "--command", "[sleep, 30]", "--node-count", "1"}
	mustCLI(t, create...)
	waitJob(t, "again", "Running")
	mustCLI(t, "delete", "hyp-pytorch-job", "--job-name", "again", "-n", "hyperpod-ns-team-a")
	waitJob(t, "again", "Cancelled")
	mustCLI(t, create...)
	waitJob(t, "again", "Running")
	out := mustCLI(t, "get-operator-logs", "hyp-pytorch-job", "--since-hours", "1")
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "team-a/again") {
			if seen[l] {
				t.Fatalf("get-operator-logs prints %q twice:\n%s", l, out)
			}
			seen[l] = true
		}
	}
	if len(seen) == 0 {
		t.Fatalf("get-operator-logs has no line of the job:\n%s", out)
	}
}
