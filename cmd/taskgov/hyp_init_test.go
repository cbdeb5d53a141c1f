package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHypInitExperience runs hyp's init experience of HyperPod's README
// and training guide (Option 1: init, configure, validate, create) through
// hyp's entry point against a real server, with its error cases: a second
// init, empty required fields, a value of the wrong type, a field of the
// other schema version, an unknown field, an option taskgov refuses, and
// the templates taskgov does not serve.
func TestHypInitExperience(t *testing.T) {
	cliServerWith(t, walkthroughCluster)
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	dir := t.TempDir()
	t.Chdir(dir)
	read := func() string {
		b, err := os.ReadFile("config.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	out := mustCLI(t, "init", "hyp-pytorch-job")
	if !strings.Contains(out, "hyp-pytorch-job for schema version='1.1' is initialized in .\n🚀 Welcome!\n📘 See ./README.md for usage.\n") {
		t.Fatalf("hyp init:\n%s", out)
	}
	if c := read(); !strings.HasPrefix(c, "# template: hyp-pytorch-job\n# version: 1.1\n") || !strings.Contains(c, "\njob_name: null\n") ||
		!strings.Contains(c, "\nrequired_topology: null\n") {
		t.Fatalf("config.yaml:\n%s", c)
	}
	if _, err := os.Stat("README.md"); err != nil {
		t.Fatal(err)
	}
	mustFail(t, exitInput, "already holds a config.yaml", "init", "hyp-pytorch-job")
	mustFail(t, exitFailure, "job_name: Field is required", "validate")
	mustFail(t, exitFailure, "image: Field is required", "create")

	if o := mustCLI(t, "configure", "--job-name", "my-pytorch-job"); o != "✔️  config.yaml updated successfully.\n" {
		t.Fatalf("hyp configure: %q", o)
	}
	mustCLI(t, "configure", "--image", "pytorch/pytorch:latest", "--namespace", "hyperpod-ns-team-a", "--command", "[sleep, 30]",
		"--environment", `{"A": "b"}`, "--node-count", "1", "--deep-health-check-passed-nodes-only", "true",
		"--volume", "name=model-data,type=hostPath,mount_path=/data,path=/data")
	// The end-to-end walkthrough's form of --volume: a JSON list.
	mustCLI(t, "configure", "--volume", `[{"name":"shmem","type":"hostPath","mount_path":"/dev/shm","path":"/dev/shm","read_only":false},`+
		`{"name":"fsx-volume","type":"pvc","mount_path":"/data","claim_name":"fsx-claim","read_only":false}]`)
	if c := read(); !strings.Contains(c, "claim_name: fsx-claim\n") || !strings.Contains(c, " name: shmem\n") {
		t.Fatalf("config.yaml after configure --volume '[...]':\n%s", c)
	}
	before := read()
	if e := mustFail(t, exitFailure, `--node-count: expected an integer, got "two"`, "configure", "--node-count", "two"); !strings.HasPrefix(e, "❌  Invalid input arguments:\n  – ") ||
		!strings.HasSuffix(e, "\n❌  config.yaml was not updated due to invalid input.") {
		t.Fatalf("hyp configure of a wrong type: %q", e)
	}
	mustFail(t, exitFailure, "expected a JSON list of volumes", "configure", "--volume", `[{"name": "shmem",`)
	if read() != before {
		t.Fatal("a refused configure changed config.yaml")
	}
	if out := mustCLI(t, "validate"); out != "✔️  config.yaml is valid!\n✔️ Configuration validated successfully\n" {
		t.Fatalf("hyp validate:\n%s", out)
	}

	// Edited by hand: an unknown field, and an option taskgov refuses.
	_ = os.WriteFile("config.yaml", []byte(before+"bogus: 1\n"), 0o644)
	mustFail(t, exitFailure, "bogus: not a field of hyp-pytorch-job 1.1", "validate")
	_ = os.WriteFile("config.yaml", []byte(strings.Replace(before, "max_node_count: null", "max_node_count: 4", 1)), 0o644)
	mustFail(t, exitFailure, "no elastic training", "validate")
	_ = os.WriteFile("config.yaml", []byte(before), 0o644)

	out, errs, code := cli(t, "create")
	if code != 0 || !strings.HasPrefix(out, "✔️  config.yaml is valid!\nSuccessfully submitted HyperPodPytorchJob 'my-pytorch-job'!\n✔️  Submitted! Files written to run/") ||
		!strings.Contains(errs, "--volume is accepted but not used") {
		t.Fatalf("hyp create: exit %d\n%s\n%s", code, out, errs)
	}
	waitJob(t, "my-pytorch-job", "Running")
	runs, _ := filepath.Glob("run/*/config.yaml")
	if len(runs) != 1 {
		t.Fatalf("run/<time>/config.yaml: %v", runs)
	}
	// The same job again is refused (its name is live) and keeps nothing;
	// another job, perhaps in the same second, keeps its own copy.
	if out, errs, code := cli(t, "create"); code == 0 || strings.Contains(out, "Submitted!") {
		t.Fatalf("hyp create of a live name: exit %d\n%s\n%s", code, out, errs)
	}
	if runs, _ = filepath.Glob("run/*/config.yaml"); len(runs) != 1 {
		t.Fatalf("a refused hyp create kept its config.yaml: %v", runs)
	}
	mustCLI(t, "configure", "--job-name", "my-second-job")
	mustCLI(t, "create")
	if runs, _ = filepath.Glob("run/*/config.yaml"); len(runs) != 2 {
		t.Fatalf("two submitted jobs, run/<time>/config.yaml: %v", runs)
	}
	if s := hypStates(t, mustCLI(t, "list", "hyp-pytorch-job", "-n", "hyperpod-ns-team-a")); s["my-pytorch-job"] != "Running" {
		t.Fatalf("hyp list: %v", s)
	}
	if o := mustCLI(t, "describe", "hyp-pytorch-job", "--job-name", "my-pytorch-job", "-n", "hyperpod-ns-team-a"); !strings.Contains(o, "Image:           pytorch/pytorch:latest") {
		t.Fatalf("hyp describe:\n%s", o)
	}

	mustCLI(t, "reset")
	if c := read(); !strings.HasPrefix(c, "# template: hyp-pytorch-job\n# version: 1.1\n") || !strings.Contains(c, "\njob_name: null\n") {
		t.Fatalf("config.yaml after reset:\n%s", c)
	}
	mustFail(t, exitFailure, "only for the cluster-stack template", "create", "--region", "us-west-2")
	mustFail(t, exitInput, "hyp init cluster-stack is not served by taskgov: cluster stacks are CloudFormation stacks", "init", "cluster-stack", "stack")
	mustFail(t, exitInput, "hyp init hyp-recipe-job is not served by taskgov: a recipe job's recipe", "init", "hyp-recipe-job", "recipe")

	// A 1.0 directory has 1.0's fields.
	mustCLI(t, "init", "hyp-pytorch-job", "old", "--version", "1.0")
	t.Chdir(filepath.Join(dir, "old"))
	mustFail(t, exitFailure, "a field of schema 1.1", "configure", "--replica-count", "2")
	t.Chdir(t.TempDir())
	mustFail(t, exitFailure, "No config.yaml found", "validate")
}

// TestHypCreateKeepFails: when the copy of config.yaml cannot be kept after
// the job was submitted (here run is a file, not a folder), hyp create
// fails saying the job was submitted, and the job runs: the user is not led
// to submit it again.
func TestHypCreateKeepFails(t *testing.T) {
	cliServerWith(t, walkthroughCluster)
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	t.Chdir(t.TempDir())
	mustCLI(t, "init", "hyp-pytorch-job")
	mustCLI(t, "configure", "--job-name", "kept-not", "--image", "pytorch/pytorch:latest", "--namespace", "hyperpod-ns-team-a",
		"--command", "[sleep, 30]", "--node-count", "1")
	if err := os.WriteFile("run", []byte("not a folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := cli(t, "create")
	if code == 0 || !strings.Contains(errs, "the job was submitted, but its config.yaml could not be kept") || strings.Contains(out, "Submitted!") {
		t.Fatalf("hyp create with run a file: exit %d\n%s\n%s", code, out, errs)
	}
	waitJob(t, "kept-not", "Running")
}
