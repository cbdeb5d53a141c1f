package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/testwait"
)

// imageCluster is the walkthrough's cluster with an images section: the
// training guide's image runs a shell that prints what it was given (its
// $0 and the task's args), where a Kubernetes pod would run the image's
// entrypoint.
const imageCluster = walkthroughCluster + `images:
  pytorch/pytorch:latest: [sh, -c, 'echo "entrypoint of pytorch/pytorch:latest in $PWD: $*"', entrypoint]
`

// TestHypCreateImageWithoutCommand: the training guide's first line,
// `hyp create hyp-pytorch-job --job-name test-pytorch-job --image
// pytorch/pytorch:latest` (no --command: the pod runs the image's
// entrypoint), verbatim through the hyp link against a local-executor
// server. Its cluster file maps the image, so the job is accepted with
// hyp's output, the mapped program runs as a child process of the server
// in the task's directory, with --args appended as Kubernetes appends a
// container's args, and its log is read back with `hyp get-logs`. An image
// the file does not map is refused at submission, in hyp's shape (the
// message on stdout, "Failed to create" on stderr, exit 1) naming both
// fixes, and no job is made; so are a hostile image name and an enormous
// one (bounded, the name not echoed back). The CLI refused all of these
// itself with "--command: the job has nothing to run".
func TestHypCreateImageWithoutCommand(t *testing.T) {
	runIn := linkRunnerWith(t, imageCluster)
	hyp := func(args ...string) (string, string, int) { return runIn("", "hyp", args...) }
	if _, errs, code := hyp("set-cluster-context", "--cluster-name", "taskgov", "--namespace", "hyperpod-ns-team-a"); code != 0 {
		t.Fatalf("set-cluster-context: exit %d: %s", code, errs)
	}

	out, errs, code := hyp("create", "hyp-pytorch-job", "--job-name", "test-pytorch-job", "--image", "pytorch/pytorch:latest")
	if code != 0 || out != "Using version: 1.1\nSuccessfully submitted HyperPodPytorchJob 'test-pytorch-job'!\n" {
		t.Fatalf("the training guide's line: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	logs := func(job, want string) string {
		t.Helper()
		var o string
		testwait.For(t, 30*time.Second, 100*time.Millisecond, "hyp get-logs of "+job+" shows the entrypoint's output "+want, func() bool {
			o, _, _ = hyp("get-logs", "hyp-pytorch-job", "--pod-name", job+"-pod-0", "--job-name", job)
			return strings.Contains(o, want)
		})
		return o
	}
	// In the task's directory (TASK_DIR/<team>/<task>), with no arguments.
	logs("test-pytorch-job", "entrypoint of pytorch/pytorch:latest in ")
	logs("test-pytorch-job", "/team-a/test-pytorch-job: \n")
	if _, errs, code := hyp("create", "hyp-pytorch-job", "--job-name", "with-args", "--image", "pytorch/pytorch:latest", "--args", "[--epochs=3, --lr=0.1]"); code != 0 {
		t.Fatalf("with --args: exit %d: %s", code, errs)
	}
	logs("with-args", "with-args: --epochs=3 --lr=0.1\n")

	refused := func(job, image, want string) {
		t.Helper()
		out, errs, code := hyp("create", "hyp-pytorch-job", "--job-name", job, "--image", image)
		if code != exitFailure || !strings.Contains(out, want) || !strings.Contains(errs, "Failed to create HyperPodPytorchJob "+job+"!") || strings.Contains(out, "Successfully") {
			t.Fatalf("hyp create --image %.40s...: exit %d (want %d)\nstdout:\n%.2000s\nstderr:\n%.2000s", image, code, exitFailure, out, errs)
		}
		if len(out)+len(errs) > 2000 {
			t.Errorf("the refusal of image %.40s... is %d bytes long", image, len(out)+len(errs))
		}
		if _, _, code := hyp("describe", "hyp-pytorch-job", "--job-name", job); code != exitFailure {
			t.Errorf("a refused create made job %s (describe exit %d)", job, code)
		}
	}
	refused("unmapped", "nvcr.io/nvidia/pytorch:24.01-py3",
		`command: is missing, and this server runs tasks as local processes: it cannot run image "nvcr.io/nvidia/pytorch:24.01-py3"'s entrypoint; `+
			`give the command to run (hyp: --command '[python3, train.py]'), or ask the admin to map the image to a program in the cluster file's images: section`)
	// A hostile member's image names: shell syntax runs nothing and is
	// quoted back; an enormous one is refused by its length, not echoed.
	pwned := filepath.Join(t.TempDir(), "pwned")
	refused("hostile", "x/y:1;$(touch${IFS}"+pwned+")|`id`", `it cannot run image "x/y:1;$(touch${IFS}/`)
	if _, err := os.Stat(pwned); err == nil {
		t.Error("an image name ran a command")
	}
	refused("enormous", strings.Repeat("a", 20000), "image: is not a valid image reference; give an image reference of at most 512 characters")
	if _, errs, code := hyp("create", "hyp-pytorch-job", "--job-name", "unmapped", "--image", "nvcr.io/nvidia/pytorch:24.01-py3", "--command", "[true]"); code != 0 {
		t.Fatalf("the refused job with --command: exit %d: %s", code, errs)
	}
}

// TestImageOnlyTaskWithoutMappingFailsAtStart: a task stored with an image
// and no command that the server can no longer run (stored by a version
// that accepted any image, or the cluster file's images section changed
// since) is failed when it would start, with the reason and the fix, and
// the server goes on: the restart story. Here the task runs on a server
// whose cluster file maps its image, and the server restarts on a file that
// does not; recovery requeues the task to resume, its start fails, and a
// job submitted after it runs. A new submission of that image is refused.
func TestImageOnlyTaskWithoutMappingFailsAtStart(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(walkthroughCluster + "images:\n  trainer/sleeps:1: [sleep, \"600\"]\n")
	stop := startServerOn(t, dir, cfg, "")
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	create := func(job string, extra ...string) (string, string, int) {
		return cli(t, append([]string{"create", "hyp-pytorch-job", "--job-name", job, "-n", "hyperpod-ns-team-a", "--image", "trainer/sleeps:1"}, extra...)...)
	}
	if _, errs, code := create("old"); code != 0 {
		t.Fatalf("hyp create: exit %d: %s", code, errs)
	}
	waitJob(t, "old", "Running")
	stop()

	write(walkthroughCluster)
	startServerOn(t, dir, cfg, "")
	waitJob(t, "old", "Failed")
	cl, err := apiClient()
	if err != nil {
		t.Fatal(err)
	}
	task, err := cl.Task(context.Background(), "old")
	if err != nil {
		t.Fatal(err)
	}
	if want := `could not start: task old has no command to run, and the cluster file maps no entrypoint for its image "trainer/sleeps:1" (images:); submit it again with a command`; !strings.Contains(task.Message, want) {
		t.Errorf("the failed task says %q, want %q", task.Message, want)
	}
	if out, errs, code := create("again"); code != exitFailure || !strings.Contains(out+errs, `it cannot run image "trainer/sleeps:1"'s entrypoint`) {
		t.Errorf("hyp create of the image no longer mapped: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := create("after", "--command", "[true]"); code != 0 {
		t.Fatalf("hyp create --command after the failure: exit %d: %s", code, errs)
	}
	waitJob(t, "after", "Succeeded")
}

// TestApplyNotesTheImagesSection: `taskgov apply -f` of a cluster file
// with an images section applies its teams and policy and says that the
// section is the server's own (read from --config at start), so an admin
// does not take it for applied.
func TestApplyNotesTheImagesSection(t *testing.T) {
	dir := cliServerWith(t, walkthroughCluster)
	f := filepath.Join(dir, "with-images.yaml")
	if err := os.WriteFile(f, []byte(imageCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := cli(t, "apply", "-f", f)
	if code != 0 || !strings.Contains(errs, "note: "+f+": images: is the local executor's, read from the server's --config file when it starts; apply does not change it") {
		t.Fatalf("apply -f: exit %d: %s", code, errs)
	}
}
