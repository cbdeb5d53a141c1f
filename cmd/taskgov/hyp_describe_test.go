package main

import (
	"strings"
	"testing"
)

// TestHypDescribeSuspended: a job waiting for compute is a suspended
// PyTorchJob, which has no Created condition (hyp list shows its AGE as
// N/A for that reason), yet hyp describe printed one. hyp describe prints
// a job's conditions as they are (HyperPod's CLI source), so a suspended
// job now shows Suspended alone, and a running one Created and Running.
func TestHypDescribeSuspended(t *testing.T) {
	cliServerWith(t, walkthroughCluster)
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	ns := "hyperpod-ns-team-a"
	for _, job := range []string{"first", "second"} {
		mustCLI(t, "create", "hyp-pytorch-job", "--job-name", job, "-n", ns, "--image", "i", "--command", "[sleep, 60]", "--node-count", "2")
	}
	waitJob(t, "first", "Running")
	waitJob(t, "second", "Pending")
	conds := func(job string) string {
		o := mustCLI(t, "describe", "hyp-pytorch-job", "--job-name", job, "-n", ns)
		var types []string
		for _, l := range strings.Split(o, "\n") {
			if v, ok := strings.CutPrefix(l, "  Type:               "); ok {
				types = append(types, v)
			}
		}
		return strings.Join(types, ",")
	}
	if c := conds("second"); c != "Suspended" {
		t.Errorf("hyp describe of a suspended job: conditions %s, want Suspended alone", c)
	}
	if c := conds("first"); c != "Created,Running" {
		t.Errorf("hyp describe of a running job: conditions %s, want Created,Running", c)
	}
	// No --tasks-per-node: hyp's default, "auto", is the job's nprocPerNode
	// (it showed N/A).
	if o := mustCLI(t, "describe", "hyp-pytorch-job", "--job-name", "first", "-n", ns); !strings.Contains(o, "\nProcesses per Node: auto\n") {
		t.Errorf("hyp describe without --tasks-per-node:\n%s", o)
	}
	if s := hypStates(t, mustCLI(t, "list", "hyp-pytorch-job", "-n", ns)); s["second"] != "Suspended" || s["first"] != "Running" {
		t.Errorf("hyp list: %v", s)
	}
}
