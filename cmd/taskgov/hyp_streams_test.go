package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHypStreamsAndTasksPerNode runs the real binary through its hyp and
// hyperpod links against a real server, reading stdout and stderr apart as
// a script does. hyp printed every failure on stderr behind "hyp: ", where
// HyperPod's hyp echoes a job command's failure and its init experience's
// on stdout (exit 1) and click prints a usage error or a ClickException on
// stderr as "Error: ..."; `hyp configure` wrote a node count of 0 and a job
// name hyp's schema refuses, and hyp validate passed them; `--tasks-per-node
// gpu` was accepted and dropped (hyp describe said auto, the job had no
// NPROC_PER_NODE); hyp describe cluster of another name lacked hyp's ❌.
func TestHypStreamsAndTasksPerNode(t *testing.T) {
	runIn := linkRunner(t)
	run := func(name string, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		return runIn("", name, args...)
	}
	// expect checks the exit code, that want is on the stream named (the
	// other one empty), and returns that stream.
	expect := func(code int, stream, want, name string, args ...string) string {
		t.Helper()
		out, errs, got := run(name, args...)
		on, other := out, errs
		if stream == "stderr" {
			on, other = errs, out
		}
		if got != code || !strings.Contains(on, want) || other != "" {
			t.Fatalf("%s %s: exit %d (want %d), want %q on %s only\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), got, code, want, stream, out, errs)
		}
		return on
	}
	ns := "hyperpod-ns-team-a"

	// A job command's failure: stdout, the message alone, exit 1.
	if o := expect(exitFailure, "stdout", "❓ Pytorch Job 'nosuch' not found", "hyp", "describe", "hyp-pytorch-job", "--job-name", "nosuch"); !strings.HasPrefix(o, "❓") {
		t.Fatalf("hyp describe of no job: %q", o)
	}
	expect(exitFailure, "stdout", "❌ Namespace 'nosuch' does not exist", "hyp", "list", "hyp-pytorch-job", "-n", "nosuch")
	expect(exitFailure, "stdout", "❌ Cluster 'nosuch' not found", "hyp", "describe", "cluster", "nosuch")
	// A usage error (click.UsageError) and a ClickException: stderr, "Error: ".
	if e := expect(exitInput, "stderr", "node_count: Input should be greater than or equal to 1", "hyp", "create", "hyp-pytorch-job",
		"--job-name", "x", "-n", ns, "--image", "i", "--command", "[true]", "--node-count", "0"); !strings.HasPrefix(e, "Error: ❌ Configuration validation errors:\n") {
		t.Fatalf("hyp create --node-count 0: %q", e)
	}
	expect(exitInput, "stderr", "job_name: String should match pattern", "hyp", "create", "hyp-pytorch-job",
		"--job-name", "My_Job", "-n", ns, "--image", "i", "--command", "[true]")
	expect(exitInput, "stderr", "Error: No such option: --bogus", "hyp", "list", "hyp-pytorch-job", "--bogus")
	expect(exitFailure, "stderr", "Error: Unsupported schema version: 1.2", "hyp", "create", "hyp-pytorch-job", "--version", "1.2",
		"--job-name", "x", "--image", "i", "--command", "[true]")
	// The cluster-context commands log their failures (stderr); v2 hyperpod logs all.
	expect(exitFailure, "stderr", "Namespace nosuch does not exist", "hyp", "list-cluster", "-n", "nosuch")
	expect(exitFailure, "stderr", "hyperpod: ", "hyperpod", "get-job", "--job-name", "nosuch")

	// The init experience: failures on stdout, exit 1; a refused value
	// writes nothing.
	work := t.TempDir()
	hypIn := func(code int, stream, want string, args ...string) string {
		t.Helper()
		stdout, stderr, got := runIn(work, "hyp", args...)
		on, other := stdout, stderr
		if stream == "stderr" {
			on, other = other, on
		}
		if got != code || !strings.Contains(on, want) || (stream == "stdout" && other != "") {
			t.Fatalf("hyp %s: exit %d (want %d), want %q on %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), got, code, want, stream, stdout, stderr)
		}
		return on
	}
	hypIn(exitFailure, "stdout", "❌  No config.yaml found", "validate")
	hypIn(0, "stdout", "is initialized", "init", "hyp-pytorch-job")
	hypIn(exitFailure, "stdout", "❌  Config validation errors:\n  – image: Field is required\n  – job_name: Field is required", "validate")
	before, err := os.ReadFile(filepath.Join(work, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	o := hypIn(exitFailure, "stdout", "  – node_count: Input should be greater than or equal to 1\n", "configure", "--job-name", "Bad_Name", "--node-count", "0", "--tasks-per-node", "4.0")
	if !strings.Contains(o, "  – job_name: String should match pattern") || !strings.Contains(o, "  – tasks_per_node: Value error") ||
		!strings.HasSuffix(o, "❌  config.yaml was not updated due to invalid input.\n") {
		t.Fatalf("hyp configure of refused values:\n%s", o)
	}
	if after, _ := os.ReadFile(filepath.Join(work, "config.yaml")); !bytes.Equal(after, before) {
		t.Fatalf("a refused configure changed config.yaml:\n%s", after)
	}
	// A config.yaml edited by hand is checked by validate the same way.
	if err := os.WriteFile(filepath.Join(work, "config.yaml"), bytes.Replace(before, []byte("\nnode_count: null\n"), []byte("\nnode_count: 0\n"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	hypIn(exitFailure, "stdout", "  – node_count: Input should be greater than or equal to 1", "validate")

	// --tasks-per-node gpu reaches the job (NPROC_PER_NODE) and hyp describe.
	hypIn(0, "stdout", "config.yaml updated successfully", "configure", "--job-name", "tpn", "--image", "pytorch/pytorch:latest", "--namespace", ns,
		"--command", "[sh, -c, echo nproc=$NPROC_PER_NODE; sleep 30]", "--node-count", "1", "--tasks-per-node", "gpu")
	hypIn(0, "stdout", "Successfully submitted HyperPodPytorchJob 'tpn'!", "create")
	// A failure to submit (here the name is live): hyp's sentence, stdout, exit 1.
	hypIn(exitFailure, "stdout", "❌  Failed to submit the command: ", "create")
	if o := expect(0, "stdout", "Processes per Node: gpu\n", "hyp", "describe", "hyp-pytorch-job", "--job-name", "tpn"); o == "" {
		t.Fatal("no describe output")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, _, _ := run("hyp", "get-logs", "hyp-pytorch-job", "--job-name", "tpn", "--pod-name", "tpn-pod-0")
		if strings.Contains(out, "nproc=gpu\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job's log has no nproc=gpu:\n%s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// An explicit count is kept as before.
	expect(0, "stdout", "Successfully submitted", "hyp", "create", "hyp-pytorch-job", "--job-name", "tpn4", "-n", ns, "--image", "i",
		"--command", "[sleep, 30]", "--tasks-per-node", "4")
	expect(0, "stdout", "Processes per Node: 4\n", "hyp", "describe", "hyp-pytorch-job", "--job-name", "tpn4")
}
