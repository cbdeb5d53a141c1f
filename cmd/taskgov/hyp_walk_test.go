package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	mustCLI(t, "delete", "hyp-pytorch-job", "--job-name", "again", "-n", "hyperpod-ns-team-a") // cancelled when it answers
	mustCLI(t, create...)
	waitJob(t, "again", "Running")
	// Two events may print alike (both jobs started in the same second), so
	// compare the count with the name's events as the API gives them, read
	// before and after the CLI: an event logged in between (the first job's
	// end, under load) makes the pair differ, and the read is taken again.
	cl, err := apiClient()
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		evs, err := cl.TaskEvents(context.Background(), "again")
		if err != nil {
			t.Fatal(err)
		}
		return len(evs)
	}
	var out string
	lines, want := 0, -1
	for try := 0; try < 5; try++ {
		before := count()
		out = mustCLI(t, "get-operator-logs", "hyp-pytorch-job", "--since-hours", "1")
		if count() != before {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		want, lines = before, 0
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "team-a/again") {
				lines++
			}
		}
		break
	}
	if want < 0 {
		t.Fatal("the job's events kept changing while get-operator-logs ran (5 tries)")
	}
	if lines == 0 || lines != want {
		t.Fatalf("get-operator-logs prints %d lines of the job, want one per event (%d):\n%s", lines, want, out)
	}
}

// TestStartJobRelativeScript: the README's quick tour ran `start-job
// --command "python3 examples/train.py ..."` from the repository, and the
// job failed: it runs in its task's directory on the server, where the
// relative path finds nothing. The CLI now names the absolute path on
// stderr, and the tour's line with that path trains to the end.
func TestStartJobRelativeScript(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed (the example training script needs it)")
	}
	cliServer(t)
	repo, _ := filepath.Abs("../..")
	t.Chdir(repo)
	abs := filepath.Join(repo, "examples", "train.py")
	_, errs, code := cli(t, "start-job", "--job-name", "rel", "-n", "hyperpod-ns-ml-engineers", "--node-count", "1",
		"--command", "python3 examples/train.py --steps 2 --step-seconds 0.01")
	if code != 0 || !strings.Contains(errs, "note: examples/train.py is a relative path") || !strings.Contains(errs, "pass "+abs) {
		t.Fatalf("start-job with a relative script: exit %d, stderr:\n%s", code, errs)
	}
	waitJob(t, "rel", "Failed")
	mustCLI(t, "start-job", "--job-name", "abs", "-n", "hyperpod-ns-ml-engineers", "--node-count", "1",
		"--command", "python3 "+abs+" --steps 2 --step-seconds 0.01")
	waitJob(t, "abs", "Succeeded")
	// hyp's and hyperpod's forms of the same command line say the same.
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	_, errs, _ = cli(t, "create", "hyp-pytorch-job", "--job-name", "rel-hyp", "-n", "hyperpod-ns-ml-engineers",
		"--image", "i", "--command", "[python3, examples/train.py]")
	if !strings.Contains(errs, "pass "+abs) {
		t.Fatalf("hyp create with a relative script, stderr:\n%s", errs)
	}
}

// TestHypUnservedCommands: hyp's commands for endpoints, spaces, clusters
// and GPU partitions answered cobra's `unknown command`; they now say why
// taskgov does not serve them (exit 2), whatever their options.
func TestHypUnservedCommands(t *testing.T) {
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	mustFail(t, exitInput, "does not schedule GPU partitions (MIG)", "list-accelerator-partition-type", "--instance-type", "ml.p5.48xlarge")
	mustFail(t, exitInput, "hyp invoke is not served by taskgov: it invokes inference endpoints", "invoke", "hyp-custom-endpoint", "--endpoint-name", "e", "--body", "{}")
	mustFail(t, exitInput, "hyp update is not served by taskgov", "update", "cluster", "--cluster-name", "my-cluster", "--node-recovery", "Automatic")
}

// TestHypGetLogsReusedName: a job submitted under the name of a finished
// one printed the earlier job's output too (the local executor appended
// to the name's log files); HyperPod's new job has new pods and new logs.
func TestHypGetLogsReusedName(t *testing.T) {
	cliServerWith(t, walkthroughCluster)
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	for _, word := range []string{"first-job-output", "second-job-output"} {
		mustCLI(t, "create", "hyp-pytorch-job", "--job-name", "twice", "-n", "hyperpod-ns-team-a", "--image", "i",
			"--command", "[sh, -c, echo "+word+"]", "--node-count", "1")
		waitJob(t, "twice", "Succeeded")
	}
	out := mustCLI(t, "get-logs", "hyp-pytorch-job", "--job-name", "twice", "--pod-name", "twice-pod-0", "-n", "hyperpod-ns-team-a")
	if !strings.Contains(out, "second-job-output") || strings.Contains(out, "first-job-output") {
		t.Fatalf("get-logs of the second job:\n%s", out)
	}
}

// TestHyperpodConfigFileMissing: `hyperpod start-job --config-file` with a
// path that is not there exited 1 (taskgov failed) with Go's open error;
// it is the user's input (exit 2), named as such.
func TestHyperpodConfigFileMissing(t *testing.T) {
	hyperpodMode = true
	t.Cleanup(func() { hyperpodMode = false })
	missing := filepath.Join(t.TempDir(), "job.yaml")
	mustFail(t, exitInput, "--config-file: configuration file "+missing+" cannot be read: no such file or directory", "start-job", "--config-file", missing)
}

// TestHyperpodOutputChoices: an --output HyperPod does not offer was
// taken as json by list-jobs and get-clusters (exit 0), and start-job
// submitted the job before refusing its format; each now refuses first,
// in click's words, as does an --orchestrator other than eks (taken).
func TestHyperpodOutputChoices(t *testing.T) {
	cliServer(t)
	hyperpodMode = true
	t.Cleanup(func() { hyperpodMode = false })
	mustFail(t, exitInput, `Invalid value for '--output': 'bogus' is not one of 'table', 'json', 'yaml'.`, "list-jobs", "-A", "--output", "bogus")
	mustFail(t, exitInput, `Invalid value for '--output': 'yaml' is not one of 'json', 'table'.`, "get-clusters", "--output", "yaml")
	mustFail(t, exitInput, `Invalid value for '--orchestrator': 'slurm' is not one of 'eks'.`, "get-clusters", "--orchestrator", "slurm")
	mustFail(t, exitInput, `Invalid value for '--output': 'bogus'`, "start-job", "--job-name", "not-submitted", "-n", "hyperpod-ns-ml-engineers",
		"--command", "true", "--output", "bogus")
	mustFail(t, exitFailure, "not found", "get-job", "--job-name", "not-submitted")
	if out := mustCLI(t, "get-clusters", "--output", "table"); !strings.Contains(out, "ml.p5.48xlarge") {
		t.Fatalf("get-clusters --output table:\n%s", out)
	}
}

// TestHyperpodConfigFileTypeErrors: a value of the wrong kind in a job file
// (Hydra's or taskgov's task fields) is named by its line, its place and
// what it must be; the message named a YAML tag and a Go type ("cannot
// unmarshal !!str `two` into int").
func TestHyperpodConfigFileTypeErrors(t *testing.T) {
	hyperpodMode = true
	t.Cleanup(func() { hyperpodMode = false })
	dir := t.TempDir()
	hydra := filepath.Join(dir, "hydra.yaml")
	_ = os.WriteFile(hydra, []byte("training_cfg:\n  entry_script: train.py\n  run: {name: x, nodes: two}\ncluster:\n  instance_type: ml.p5.48xlarge\n"), 0o644)
	out := mustFail(t, exitInput, `line 3: training_cfg.run.nodes must be a whole number, not "two"`, "start-job", "--config-file", hydra)
	plain := filepath.Join(dir, "task.yaml")
	_ = os.WriteFile(plain, []byte("name: x\ninstanceType: ml.p5.48xlarge\nnodes: [1]\n"), 0o644)
	out += mustFail(t, exitInput, `line 3: nodes must be a whole number, not a list`, "start-job", "--config-file", plain)
	if strings.Contains(out, "cannot unmarshal") || strings.Contains(out, "!!") {
		t.Errorf("a Go type or YAML tag leaks:\n%s", out)
	}
}

// TestHypCreateFromConfigFailure: HyperPod's training walkthrough
// (01-training-job-submission) configures `--namespace default` and runs
// `hyp create`. With a token of two teams with a quota of the job's type
// and no namespace saved, taskgov refuses to pick a team; hyp prints any
// failure to submit as `❌  Failed to submit the command: ...` on stdout,
// exit 1, and so does taskgov now (it printed `Error: ...` on stderr, exit
// 2, unlike the rest of the init experience; TestHypStreamsAndTasksPerNode
// checks the stream through the link). Nothing is submitted or
// kept; with the namespace saved by set-cluster-context the same
// config.yaml is submitted to that team.
func TestHypCreateFromConfigFailure(t *testing.T) {
	cliServerWith(t, walkthroughCluster)
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	t.Chdir(t.TempDir())
	mustCLI(t, "init", "hyp-pytorch-job")
	mustCLI(t, "configure", "--job-name", "qwen3-4b-thinking-2507-fsdp")
	mustCLI(t, "configure", "--image", "123456789012.dkr.ecr.us-west-2.amazonaws.com/qwen3-finetuning:pytorch2.8-cu129")
	mustCLI(t, "configure", "--command", "[sleep, 30]")
	mustCLI(t, "configure", "--instance-type", "ml.g5.12xlarge")
	mustCLI(t, "configure", "--namespace", "default")
	out, errs, code := cli(t, "create")
	want := "❌  Failed to submit the command: --namespace: no namespace given, and this token may submit to 2 teams with a quota of ml.g5.12xlarge: hyperpod-ns-team-a, hyperpod-ns-team-b"
	if code != exitFailure || !strings.Contains(errs, want) {
		t.Fatalf("hyp create with -n default and two teams: exit %d\n%s\n%s", code, out, errs)
	}
	if runs, _ := filepath.Glob("run/*"); len(runs) != 0 {
		t.Fatalf("a refused hyp create kept %v", runs)
	}
	if o := mustCLI(t, "list", "hyp-pytorch-job"); strings.TrimSpace(o) != "No jobs found." {
		t.Fatalf("a refused hyp create submitted:\n%s", o)
	}
	mustCLI(t, "set-cluster-context", "--cluster-name", "taskgov", "--namespace", "hyperpod-ns-team-a")
	if out := mustCLI(t, "create"); !strings.Contains(out, "Successfully submitted HyperPodPytorchJob 'qwen3-4b-thinking-2507-fsdp'!") {
		t.Fatalf("hyp create after set-cluster-context:\n%s", out)
	}
	if s := hypStates(t, mustCLI(t, "list", "hyp-pytorch-job", "-n", "hyperpod-ns-team-a")); s["qwen3-4b-thinking-2507-fsdp"] == "" {
		t.Fatalf("the job is not in team-a's namespace: %v", s)
	}
}
