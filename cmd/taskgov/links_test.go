package main

import (
	"strings"
	"testing"
)

// TestLinksAsHyperPodScripts runs the real binary through its hyp and
// hyperpod links against a real server, as a HyperPod user's script does:
// it tests $? and reads stdout. Both CLIs exit 1 on every failure that is
// not a usage error (not found, an unsupported schema version), where
// taskgov exited 4 and 2; hyperpod cancel-job prints the empty line
// click echoes for its None; hyp's default namespace works for an admin
// of several teams, where it asked for -n. taskgov's own name keeps its
// exit codes.
func TestLinksAsHyperPodScripts(t *testing.T) {
	runIn := linkRunner(t)
	run := func(name string, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		return runIn("", name, args...)
	}
	expect := func(code int, contains string, name string, args ...string) string {
		t.Helper()
		out, errs, got := run(name, args...)
		if got != code || !strings.Contains(out+errs, contains) {
			t.Fatalf("%s %s: exit %d (want %d), want %q in:\n%s%s", name, strings.Join(args, " "), got, code, contains, out, errs)
		}
		return out
	}

	// hyp's README line without -n, by the admin of two teams with quotas:
	// refused naming both namespaces (a job is not charged to a team picked
	// for it), then created with one.
	create := []string{"create", "hyp-pytorch-job", "--job-name", "linked", "--image", "pytorch/pytorch:latest",
		"--command", "[sleep, 60]", "--node-count", "1"}
	expect(exitInput, "hyperpod-ns-team-a, hyperpod-ns-team-b", "hyp", create...)
	out, errs, code := run("hyp", append(create, "-n", "hyperpod-ns-team-a")...)
	if code != 0 || out != "Using version: 1.1\nSuccessfully submitted HyperPodPytorchJob 'linked'!\n" {
		t.Fatalf("hyp create -n: exit %d\n%s%s", code, out, errs)
	}
	expect(0, "linked", "hyp", "list", "hyp-pytorch-job")
	expect(0, "Processes per Node: auto", "hyp", "describe", "hyp-pytorch-job", "--job-name", "linked")

	// Failures: 1 through the links, as in HyperPod; a refused command
	// line 2, as click's usage errors.
	expect(exitFailure, "❓ Pytorch Job 'nosuch' not found", "hyp", "describe", "hyp-pytorch-job", "--job-name", "nosuch")
	expect(exitFailure, "❌ Namespace 'nosuch' does not exist", "hyp", "list", "hyp-pytorch-job", "-n", "nosuch")
	expect(exitFailure, "Unsupported schema version: 1.2", "hyp", "create", "hyp-pytorch-job", "--version", "1.2",
		"--job-name", "x", "--image", "i", "--command", "[true]")
	expect(exitFailure, `it cannot run image "i"'s entrypoint`, "hyp", "create", "hyp-pytorch-job", "--job-name", "x", "--image", "i", "-n", "hyperpod-ns-team-a") // the server's refusal
	expect(exitInput, "No such option: --bogus", "hyp", "list", "hyp-pytorch-job", "--bogus")
	expect(exitFailure, "not found", "hyperpod", "get-job", "--job-name", "nosuch")
	expect(exitFailure, "Namespace nosuch does not exist!", "hyperpod", "list-jobs", "-n", "nosuch")
	expect(exitNotFound, "not found", "taskgov", "get-job", "--job-name", "nosuch")

	// cancel-job: one empty line on stdout, then the job is gone.
	if out := expect(0, "", "hyperpod", "cancel-job", "--job-name", "linked"); out != "\n" {
		t.Fatalf("hyperpod cancel-job printed %q; HyperPod prints one empty line", out)
	}
	expect(exitFailure, "not found", "hyperpod", "cancel-job", "--job-name", "linked")
}
