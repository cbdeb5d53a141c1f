package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// walkthroughCluster is the cluster of HyperPod's task-governance
// walkthrough: two ml.g5.12xlarge split by two teams that lend and borrow,
// a borrow limit of 100% (the walkthrough's setup), and priority classes
// experimentation above training. HyperPod preempts at once: preemption
// Immediate (taskgov's default waits until a preemption pays for itself).
const walkthroughCluster = `
nodeGroups:
  - {name: g5, instanceType: ml.g5.12xlarge, count: 2}
policy:
  taskPrioritization: TaskRanking
  idleComputeAllocation: FairShare
  preemption: Immediate
  priorityClasses: [{name: experimentation, weight: 80}, {name: training, weight: 70}]
teams:
  - {name: team-a, fairShareWeight: 50, borrowLimitPercent: 100, quotas: [{instanceType: ml.g5.12xlarge, count: 1}]}
  - {name: team-b, fairShareWeight: 50, borrowLimitPercent: 100, quotas: [{instanceType: ml.g5.12xlarge, count: 1}]}
`

// hypCreate is the walkthrough's `hyp create hyp-pytorch-job` command line
// for a job; the only addition is PATH in --environment, so that the local
// executor finds a stand-in hyperpodrun.
func hypCreateLine(job, ns, prio, nodes, bin string) []string {
	return []string{"create", "hyp-pytorch-job",
		"--job-name", job, "--namespace", ns, "--queue-name", ns + "-localqueue", "--priority", prio,
		"--image", "123456789012.dkr.ecr.us-west-2.amazonaws.com/qwen3-finetuning:pytorch2.8-cu129",
		"--command", "[hyperpodrun, --nnodes=2:2, --nproc_per_node=4, /data/qwen-cli-example/scripts/train.py]",
		"--args", "[--config, /data/qwen-cli-example/scripts/args.yaml]",
		"--environment", `{"LOGLEVEL": "INFO", "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", "NCCL_DEBUG": "INFO", "NCCL_SOCKET_IFNAME": "^lo", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1", "FI_PROVIDER": "efa", "FI_EFA_FORK_SAFE": "1", "NCCL_PROTO": "simple", "PATH": "` + bin + `:/usr/bin:/bin"}`,
		"--pull-policy", "IfNotPresent", "--instance-type", "ml.g5.12xlarge", "--node-count", nodes, "--tasks-per-node", "4",
		"--deep-health-check-passed-nodes-only", "false", "--max-retry", "100",
		"--volume", "name=shmem,type=hostPath,mount_path=/dev/shm,path=/dev/shm,read_only=false",
		"--volume", "name=local,type=hostPath,mount_path=/local,path=/mnt/k8s-disks/0,read_only=false",
		"--volume", "name=fsx-volume,type=pvc,mount_path=/data,claim_name=fsx-pvc-" + ns + ",read_only=false"}
}

var hypRow = regexp.MustCompile(`(?m)^(\S+)\s+(hyperpod-ns-\S+)\s+(\S+)\s+(\S+)\s*$`)

// hypStates reads `hyp list hyp-pytorch-job`'s table: job -> STATUS.
func hypStates(t *testing.T, out string) map[string]string {
	t.Helper()
	if !strings.Contains(out, "NAME                          NAMESPACE           STATUS         AGE") || !strings.Contains(out, strings.Repeat("-", 80)) {
		t.Fatalf("hyp list's header:\n%s", out)
	}
	m := map[string]string{}
	for _, r := range hypRow.FindAllStringSubmatch(out, -1) {
		m[r[1]] = r[3]
		// The AGE column: N/A while Suspended, as HyperPod's walkthrough
		// shows it (it showed 0m); whole minutes, hours or days else.
		if age := r[4]; (r[3] == "Suspended") != (age == "N/A") || age != "N/A" && !hypAgeText.MatchString(age) {
			t.Fatalf("hyp list: job %s is %s with AGE %q:\n%s", r[1], r[3], age, out)
		}
	}
	return m
}

var hypAgeText = regexp.MustCompile(`^[0-9]+[mhd]$`)

// TestHypWalkthrough runs HyperPod's task-governance walkthrough with the
// hyp CLI against a real server: borrowing, reclaiming guaranteed compute,
// and preemption by a higher priority, with hyp's outputs; then the other
// hyp job verbs of its README.
func TestHypWalkthrough(t *testing.T) {
	dir := cliServerWith(t, walkthroughCluster)
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	bin := filepath.Join(dir, "bin")
	_ = os.MkdirAll(bin, 0o755)
	_ = os.WriteFile(filepath.Join(bin, "hyperpodrun"), []byte("#!/bin/sh\necho \"hyperpodrun $*\"\nsleep 60\n"), 0o755)
	list := func(ns string) map[string]string {
		return hypStates(t, mustCLI(t, "list", "hyp-pytorch-job", "-n", ns))
	}

	// Borrowing: team A's 2-instance job runs on its own and team B's idle instance.
	out := mustCLI(t, hypCreateLine("team-a-qwen3-training-prio", "hyperpod-ns-team-a", "training-priority", "2", bin)...)
	if !strings.Contains(out, "Using version: 1.1") || !strings.Contains(out, "Successfully submitted HyperPodPytorchJob 'team-a-qwen3-training-prio'!") {
		t.Fatalf("hyp create:\n%s", out)
	}
	waitJob(t, "team-a-qwen3-training-prio", "Running")
	if s := list("hyperpod-ns-team-a"); s["team-a-qwen3-training-prio"] != "Running" {
		t.Fatalf("borrowing: %v", s)
	}
	if o := mustCLI(t, "describe", "hyp-pytorch-job", "--job-name", "team-a-qwen3-training-prio", "-n", "hyperpod-ns-team-a"); !strings.Contains(o, "Job Details:") ||
		!strings.Contains(o, "Replicas: 2") || !strings.Contains(o, "Type:               Running") || !strings.Contains(o, "Processes per Node: 4\n") {
		t.Fatalf("hyp describe:\n%s", o)
	}

	// Reclaiming: team B's 1-instance job takes its instance back; team A's job is suspended.
	mustCLI(t, hypCreateLine("team-b-qwen3-training-prio", "hyperpod-ns-team-b", "training-priority", "1", bin)...)
	waitJob(t, "team-b-qwen3-training-prio", "Running")
	waitJob(t, "team-a-qwen3-training-prio", "Pending")
	if a, b := list("hyperpod-ns-team-a"), list("hyperpod-ns-team-b"); a["team-a-qwen3-training-prio"] != "Suspended" || b["team-b-qwen3-training-prio"] != "Running" {
		t.Fatalf("reclaim: team-a %v, team-b %v", a, b)
	}

	// Preemption: team B's experimentation job suspends its training job.
	mustCLI(t, hypCreateLine("team-b-qwen3-experimentation-prio", "hyperpod-ns-team-b", "experimentation-priority", "2", bin)...)
	waitJob(t, "team-b-qwen3-experimentation-prio", "Running")
	if a, b := list("hyperpod-ns-team-a"), list("hyperpod-ns-team-b"); a["team-a-qwen3-training-prio"] != "Suspended" ||
		b["team-b-qwen3-experimentation-prio"] != "Running" || b["team-b-qwen3-training-prio"] != "Suspended" {
		t.Fatalf("preemption: team-a %v, team-b %v", a, b)
	}

	// The README's other job verbs.
	job := "team-b-qwen3-experimentation-prio"
	if o := mustCLI(t, "list-pods", "hyp-pytorch-job", "--job-name", job, "-n", "hyperpod-ns-team-b"); !strings.Contains(o, "Pods for job: "+job) ||
		!strings.Contains(o, job+"-pod-1") {
		t.Fatalf("hyp list-pods:\n%s", o)
	}
	waitFor(t, 10_000_000_000, func() bool {
		o, _, _ := cli(t, "get-logs", "hyp-pytorch-job", "--pod-name", job+"-pod-0", "--job-name", job, "-n", "hyperpod-ns-team-b")
		return strings.Contains(o, "hyperpodrun --nnodes=2:2 --nproc_per_node=4 /data/qwen-cli-example/scripts/train.py --config")
	})
	if o := mustCLI(t, "get-operator-logs", "hyp-pytorch-job", "--since-hours", "0.5"); !strings.Contains(o, "PyTorch Operator Logs:") || !strings.Contains(o, "Preempt") {
		t.Fatalf("hyp get-operator-logs:\n%s", o)
	}
	mustFail(t, exitInput, "kubectl exec", "exec", "hyp-pytorch-job", "--job-name", job, "-n", "hyperpod-ns-team-b", "--all-pods", "--", "echo", "hello")
	if o := mustCLI(t, "list-cluster", "-n", "hyperpod-ns-team-a"); !strings.Contains(o, `"InstanceType": "ml.g5.12xlarge"`) {
		t.Fatalf("hyp list-cluster:\n%s", o)
	}
	mustFail(t, exitInput, "hyp list hyp-jumpstart-endpoint is not served by taskgov: inference endpoints", "list", "hyp-jumpstart-endpoint")
	mustFail(t, exitFailure, "No config.yaml found", "create") // hyp create without a resource: the init experience
	mustFail(t, exitInput, "no elastic training", append(hypCreateLine("x", "hyperpod-ns-team-a", "training", "1", bin), "--max-replica-count", "4")...)
	mustFail(t, exitInput, "Only one of 'replica_count' or 'node_count'", append(hypCreateLine("x", "hyperpod-ns-team-a", "training", "1", bin), "--replica-count", "1")...)
	for _, j := range []struct{ job, ns string }{{"team-a-qwen3-training-prio", "hyperpod-ns-team-a"}, {"team-b-qwen3-training-prio", "hyperpod-ns-team-b"},
		{"team-b-qwen3-experimentation-prio", "hyperpod-ns-team-b"}} {
		if o := mustCLI(t, "delete", "hyp-pytorch-job", "--job-name", j.job, "-n", j.ns); !strings.Contains(o, "Successful deleted") {
			t.Fatalf("hyp delete: %s", o)
		}
	}
	if o := mustCLI(t, "list", "hyp-pytorch-job", "-n", "hyperpod-ns-team-b"); strings.TrimSpace(o) != "No jobs found." {
		t.Fatalf("after delete:\n%s", o)
	}
	testHypReadme(t, bin)
}

// testHypReadme runs the job command lines of hyp's README and training
// guide as written (no -n: hyp's "default" namespace).
func testHypReadme(t *testing.T, bin string) {
	// An admin of two teams with no saved namespace: hyp's default
	// namespace lists every team's jobs; a job created in it goes to the
	// only team with a quota of its type, and with two such teams it is
	// refused naming their namespaces (it is not charged to a team picked
	// for it).
	create := []string{"create", "hyp-pytorch-job", "--job-name", "admin-default", "--image", "i", "--command", "[sleep, 30]", "--node-count", "1"}
	out, errs, code := cli(t, create...)
	if code != 2 || !strings.Contains(errs, "hyperpod-ns-team-a, hyperpod-ns-team-b") || strings.Contains(out, "Successfully") {
		t.Fatalf("hyp create without -n, admin of two teams with quotas: exit %d\n%s%s", code, out, errs)
	}
	mustCLI(t, append(create, "-n", "hyperpod-ns-team-a")...)
	if o := mustCLI(t, "list", "hyp-pytorch-job"); !regexp.MustCompile(`(?m)^admin-default\s+hyperpod-ns-team-a\s`).MatchString(o) {
		t.Fatalf("hyp list without -n, admin:\n%s", o)
	}
	mustCLI(t, "delete", "hyp-pytorch-job", "--job-name", "admin-default")
	mustCLI(t, "set-cluster-context", "--cluster-name", "taskgov", "--namespace", "hyperpod-ns-team-a")
	if o := mustCLI(t, "get-cluster-context"); !strings.HasPrefix(o, "Cluster context:http://") || !strings.Contains(o, "\nNamespace:hyperpod-ns-team-a\n") {
		t.Fatalf("hyp get-cluster-context:\n%s", o)
	}
	// The README's create lines: HyperPod refuses the first (schema 1.0
	// has no --accelerators, and its topology value is not a topology
	// label), as taskgov does; taskgov refuses the 1.1 line's GPU
	// partitions.
	readme := []string{"create", "hyp-pytorch-job", "--version", "1.0", "--job-name", "test-pytorch-job", "--image", "pytorch/pytorch:latest",
		"--command", "[python, train.py]", "--args", "[--epochs=10, --batch-size=32]", "--environment", `{"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:32"}`,
		"--pull-policy", "IfNotPresent", "--instance-type", "ml.p4d.24xlarge", "--tasks-per-node", "8",
		"--label-selector", `{"accelerator": "nvidia", "network": "efa"}`, "--deep-health-check-passed-nodes-only", "true",
		"--scheduler-type", "kueue", "--queue-name", "training-queue", "--priority", "high", "--max-retry", "3",
		"--accelerators", "8", "--vcpu", "96.0", "--memory", "1152.0", "--accelerators-limit", "8", "--vcpu-limit", "96.0", "--memory-limit", "1152.0",
		"--preferred-topology", "topology.kubernetes.io/zone=us-west-2a",
		"--volume", "name=model-data,type=hostPath,mount_path=/data,path=/data",
		"--volume", "name=training-output,type=pvc,mount_path=/data2,claim_name=my-pvc,read_only=false"}
	mustFail(t, exitInput, "No such option: --accelerators", readme...)
	mustFail(t, exitInput, "GPU partitions", "create", "hyp-pytorch-job", "--version", "1.1", "--job-name", "test-pytorch-job", "--image", "pytorch/pytorch:latest",
		"--command", "[python, train.py]", "--accelerator-partition-type", "mig-1g.5gb", "--accelerator-partition-count", "2")
	// Without --command the server decides: this cluster file maps no
	// image, so the job is refused, naming the fixes (mapped, it runs:
	// hyp_image_test.go).
	mustFail(t, exitFailure, `it cannot run image "pytorch/pytorch:latest"'s entrypoint`, "create", "hyp-pytorch-job", "--job-name", "test-pytorch-job", "--image", "pytorch/pytorch:latest")
	// The training guide's lines, with a command taskgov can run.
	mustCLI(t, "create", "hyp-pytorch-job", "--job-name", "test-pytorch-job-cli", "--image", "pytorch/pytorch:latest",
		"--command", "[hyperpodrun, --steps, 3]", "--environment", `{"PATH": "`+bin+`:/usr/bin:/bin"}`, "--node-count", "1")
	waitJob(t, "test-pytorch-job-cli", "Running")
	if s := hypStates(t, mustCLI(t, "list", "hyp-pytorch-job")); s["test-pytorch-job-cli"] != "Running" {
		t.Fatalf("hyp list: %v", s)
	}
	if o := mustCLI(t, "describe", "hyp-pytorch-job", "--job-name", "test-pytorch-job-cli"); !strings.Contains(o, "Namespace:      hyperpod-ns-team-a") {
		t.Fatalf("hyp describe:\n%s", o)
	}
	if o := mustCLI(t, "list-pods", "hyp-pytorch-job", "--job-name", "test-pytorch-job-cli"); !strings.Contains(o, "test-pytorch-job-cli-pod-0") {
		t.Fatalf("hyp list-pods:\n%s", o)
	}
	waitFor(t, 10_000_000_000, func() bool {
		o, _, _ := cli(t, "get-logs", "hyp-pytorch-job", "--pod-name", "test-pytorch-job-cli-pod-0", "--job-name", "test-pytorch-job-cli")
		return strings.Contains(o, "Pod Logs for test-pytorch-job-cli-pod-0:") && strings.Contains(o, "hyperpodrun --steps 3")
	})
	mustFail(t, exitFailure, "❌ Pod 'test-pytorch-job-cli-pod-7' not found for job 'test-pytorch-job-cli'. Its pods are test-pytorch-job-cli-pod-0 to test-pytorch-job-cli-pod-0",
		"get-logs", "hyp-pytorch-job", "--pod-name", "test-pytorch-job-cli-pod-7", "--job-name", "test-pytorch-job-cli")
	mustFail(t, exitInput, "kubectl exec", "exec", "hyp-recipe-job", "--job-name", "test-pytorch-job-cli", "--namespace", "default", "--all-pods", "--", "echo", "hello")
	if o := mustCLI(t, "list-cluster"); !strings.Contains(o, `"Cluster": "taskgov"`) {
		t.Fatalf("hyp list-cluster:\n%s", o)
	}
	mustCLI(t, "delete", "hyp-pytorch-job", "--job-name", "test-pytorch-job-cli")
	mustFail(t, exitFailure, "", "describe", "hyp-pytorch-job", "--job-name", "no-such-job")
}
