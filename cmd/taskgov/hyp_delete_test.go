package main

import (
	"strings"
	"testing"
)

// TestDeleteFinishedJob: HyperPod's task-governance walkthrough ends with
// "delete all the submitted jobs", and `hyp delete hyp-pytorch-job` (like
// `hyperpod cancel-job`) of a job that had finished exited 4 ("not live")
// and left it in `hyp list`. HyperPod deletes the PyTorchJob whatever its
// state; so does taskgov now, and the job leaves both CLIs' lists.
func TestDeleteFinishedJob(t *testing.T) {
	cliServerWith(t, walkthroughCluster)
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	ns := "hyperpod-ns-team-a"
	for _, job := range []string{"finished-a", "finished-b"} {
		mustCLI(t, "create", "hyp-pytorch-job", "--job-name", job, "-n", ns, "--image", "i", "--command", "[true]", "--node-count", "1")
		waitJob(t, job, "Succeeded")
	}
	if s := hypStates(t, mustCLI(t, "list", "hyp-pytorch-job", "-n", ns)); s["finished-a"] != "Succeeded" || s["finished-b"] != "Succeeded" {
		t.Fatalf("hyp list before the deletes: %v", s)
	}
	if o := mustCLI(t, "delete", "hyp-pytorch-job", "--job-name", "finished-a", "-n", ns); !strings.Contains(o, "Successful deleted HyperPodPytorchJob 'finished-a'!") {
		t.Fatalf("hyp delete of a finished job: %s", o)
	}
	if s := hypStates(t, mustCLI(t, "list", "hyp-pytorch-job", "-n", ns)); len(s) != 1 || s["finished-b"] != "Succeeded" {
		t.Fatalf("hyp list after deleting finished-a: %v", s)
	}
	mustFail(t, exitFailure, "not found", "delete", "hyp-pytorch-job", "--job-name", "finished-a", "-n", ns)
	mustFail(t, exitFailure, "not found", "describe", "hyp-pytorch-job", "--job-name", "finished-a", "-n", ns)

	hypMode, hyperpodMode = false, true
	t.Cleanup(func() { hyperpodMode = false })
	if o := mustCLI(t, "list-jobs", "-n", ns); strings.Contains(o, "finished-a") || !strings.Contains(o, `"Name": "finished-b"`) {
		t.Fatalf("hyperpod list-jobs after hyp delete:\n%s", o)
	}
	mustCLI(t, "cancel-job", "--job-name", "finished-b", "-n", ns)
	if o := mustCLI(t, "list-jobs", "-n", ns); strings.Contains(o, "finished-b") {
		t.Fatalf("hyperpod list-jobs after cancel-job of a finished job:\n%s", o)
	}
	mustFail(t, exitFailure, "not found", "get-job", "--job-name", "finished-b", "-n", ns)
}
