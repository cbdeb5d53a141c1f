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
// experimentation above training.
const walkthroughCluster = `
nodeGroups:
  - {name: g5, instanceType: ml.g5.12xlarge, count: 2}
policy:
  taskPrioritization: TaskRanking
  idleComputeAllocation: FairShare
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
	}
	return m
}

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
	if !strings.Contains(out, "Using version: 1.0") || !strings.Contains(out, "Successfully submitted HyperPodPytorchJob 'team-a-qwen3-training-prio'!") {
		t.Fatalf("hyp create:\n%s", out)
	}
	waitJob(t, "team-a-qwen3-training-prio", "Running")
	if s := list("hyperpod-ns-team-a"); s["team-a-qwen3-training-prio"] != "Running" {
		t.Fatalf("borrowing: %v", s)
	}
	if o := mustCLI(t, "describe", "hyp-pytorch-job", "--job-name", "team-a-qwen3-training-prio", "-n", "hyperpod-ns-team-a"); !strings.Contains(o, "Job Details:") ||
		!strings.Contains(o, "Replicas: 2") || !strings.Contains(o, "Type:               Running") {
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
	mustFail(t, exitInput, "PyTorch jobs only", "list", "hyp-jumpstart-endpoint")
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
}
