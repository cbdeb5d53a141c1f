package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// keysOf returns the sorted keys of a JSON object.
func keysOf(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %s", raw)
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func wantKeys(t *testing.T, what string, raw json.RawMessage, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := keysOf(t, raw); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s has fields %v; HyperPod's shape is %v:\n%s", what, got, want, raw)
	}
}

func mustFail(t *testing.T, code int, contains string, args ...string) string {
	t.Helper()
	_, errs, got := cli(t, args...)
	if got != code || !strings.Contains(errs, contains) {
		t.Fatalf("%s: exit %d (want %d): %s (want %q)", strings.Join(args, " "), got, code, errs, contains)
	}
	return errs
}

// TestHyperpodCommandLines runs the v2 `hyperpod` command lines of
// HyperPod's README against a real server through the hyperpod link mode,
// checking exit codes and the output shapes field by field.
func TestHyperpodCommandLines(t *testing.T) {
	dir := cliServer(t)
	hyperpodMode = true
	t.Cleanup(func() { hyperpodMode = false })
	script := filepath.Join(dir, "train.sh")
	_ = os.WriteFile(script, []byte("#!/bin/sh\necho \"train.sh args: $*\"\nsleep 30\n"), 0o755)

	// start-job: BOOL options with values, <class>-priority, the queue
	// naming the team, --command composed with --entry-script and its args.
	out := mustCLI(t, "start-job", "--job-name", "hp-train", "--image", "123.dkr.ecr/img:1", "--command", "sh",
		"--entry-script", script, "--script-args", "--steps 5", "--instance-type", "ml.p5.48xlarge", "--node-count", "2",
		"--queue-name", "hyperpod-ns-ml-engineers-localqueue", "--priority", "training-priority",
		"--auto-resume", "true", "--max-retry", "2", "--deep-health-check-passed-nodes-only", "false", "--tasks-per-node", "8")
	var started map[string]string
	if err := json.Unmarshal([]byte(out), &started); err != nil || !strings.Contains(started["Console URL"], "/ui/#task/hp-train") {
		t.Fatalf("start-job prints {\"Console URL\": ...}: %s", out)
	}
	waitJob(t, "hp-train", "Running")
	cl, _ := apiClient()
	task, err := cl.Task(context.Background(), "hp-train")
	if err != nil || task.Team != "ml-engineers" || task.Spec.Priority != "training" || task.Spec.Image != "123.dkr.ecr/img:1" ||
		!task.Spec.AutoResume || task.Spec.MaxRetry != 2 || task.Spec.Env["NPROC_PER_NODE"] != "8" {
		t.Fatalf("the job as submitted: %+v %v", task.Spec, err)
	}
	waitFor(t, 10*time.Second, func() bool {
		o, _, _ := cli(t, "get-log", "--job-name", "hp-train", "--pod", "hp-train-worker-1")
		return strings.Contains(o, "train.sh args: --steps 5")
	})

	// list-jobs: {"jobs": [{Name, Namespace, CreationTime, State, priority}]}.
	var list struct{ Jobs []json.RawMessage }
	if err := json.Unmarshal([]byte(mustCLI(t, "list-jobs", "-n", "hyperpod-ns-ml-engineers")), &list); err != nil || len(list.Jobs) != 1 {
		t.Fatalf("list-jobs: %v %v", err, list)
	}
	wantKeys(t, "list-jobs entry", list.Jobs[0], "Name", "Namespace", "CreationTime", "State", "priority")
	mustFail(t, exitFailure, "Namespace hyperpod-ns-nosuch does not exist!", "list-jobs", "-n", "hyperpod-ns-nosuch")
	if o := mustCLI(t, "list-jobs", "-n", "hyperpod-ns-ml-engineers", "--output", "table"); !strings.Contains(o, " Name ") ||
		!strings.Contains(o, "| Priority") || !strings.Contains(o, "-+-") {
		t.Fatalf("list-jobs --output table is not presto:\n%s", o)
	}
	if o := mustCLI(t, "list-jobs", "-A", "-l", "kueue.x-k8s.io/priority-class=training-priority"); !strings.Contains(o, "hp-train") {
		t.Fatalf("list-jobs -l by HyperPod's priority label:\n%s", o)
	}

	// get-job: {Name, Namespace, Label, CreationTimestamp, Status, ConsoleURL}.
	raw := json.RawMessage(mustCLI(t, "get-job", "--job-name", "hp-train", "-n", "hyperpod-ns-ml-engineers"))
	wantKeys(t, "get-job", raw, "Name", "Namespace", "Label", "CreationTimestamp", "Status", "ConsoleURL")
	raw = json.RawMessage(mustCLI(t, "get-job", "--job-name", "hp-train", "--verbose"))
	wantKeys(t, "get-job --verbose", raw, "Name", "Namespace", "Label", "Annotations", "Metadata", "Kind", "ApiVersion", "Spec", "Status", "ConsoleURL")
	mustFail(t, exitFailure, "not found in namespace", "get-job", "--job-name", "hp-train", "-n", "hyperpod-ns-product")

	// list-pods: {"pods": [{PodName, Namespace, Status, CreationTime}]}, pods named <job>-worker-<rank>.
	var pods struct{ Pods []json.RawMessage }
	if err := json.Unmarshal([]byte(mustCLI(t, "list-pods", "--job-name", "hp-train")), &pods); err != nil || len(pods.Pods) != 2 {
		t.Fatalf("list-pods: %v %v", err, pods)
	}
	wantKeys(t, "list-pods entry", pods.Pods[0], "PodName", "Namespace", "Status", "CreationTime")
	if !strings.Contains(string(pods.Pods[1]), `"hp-train-worker-1"`) {
		t.Fatalf("pod names: %s", pods.Pods[1])
	}

	// patch-job suspend shows Suspended; unsuspend runs again.
	mustCLI(t, "patch-job", "suspend", "--job-name", "hp-train")
	waitJob(t, "hp-train", "Suspended")
	if o := mustCLI(t, "list-jobs", "-n", "hyperpod-ns-ml-engineers"); !strings.Contains(o, `"State": "Suspended"`) {
		t.Fatalf("a suspended job: %s", o)
	}
	mustCLI(t, "patch-job", "unsuspend", "--job-name", "hp-train")

	// Hydra job file (HyperPod's basic example's fields).
	hydra := filepath.Join(dir, "job.yaml")
	_ = os.WriteFile(hydra, []byte(`defaults:
  - override hydra/job_logging: stdout
hydra:
  run: {dir: .}
  output_subdir: null
training_cfg:
  entry_script: `+script+`
  script_args:
    - --max_context_width: 4096
  run: {name: hydra-job, nodes: 1, ntasks_per_node: 1}
cluster:
  cluster_type: k8s
  instance_type: ml.p5.48xlarge
  cluster_config:
    annotations: null
    service_account_name: null
    persistent_volume_claims: null
    namespace: hyperpod-ns-product
    custom_labels: {kueue.x-k8s.io/priority-class: inference-priority}
    priority_class_name: null
    volumes: null
    label_selector:
      required: {sagemaker.amazonaws.com/node-health-status: [Schedulable]}
      preferred: {sagemaker.amazonaws.com/deep-health-check-status: [Passed]}
      weights: [100]
    pullPolicy: IfNotPresent
    restartPolicy: OnFailure
    scheduler_type: Kueue
base_results_dir: ./result
container: docker.io/kubeflowkatib/pytorch-mnist-cpu:v1beta1-bc09cfd
env_vars: {NCCL_DEBUG: INFO}
`), 0o644)
	mustCLI(t, "start-job", "--config-file", hydra)
	if h, err := cl.Task(context.Background(), "hydra-job"); err != nil || h.Team != "product" || h.Spec.Priority != "inference" ||
		h.Spec.Env["NCCL_DEBUG"] != "INFO" || !strings.Contains(strings.Join(h.Spec.Command, " "), "--max_context_width 4096") {
		t.Fatalf("hydra job: %+v %v", h.Spec, err)
	}

	// HyperPod's basic example submits to namespace kubeflow, which is no
	// team here: HyperPod's own answer for a missing namespace.
	b, _ := os.ReadFile(hydra)
	_ = os.WriteFile(hydra, []byte(strings.Replace(string(b), "namespace: hyperpod-ns-product", "namespace: kubeflow", 1)), 0o644)
	mustFail(t, exitFailure, "Namespace kubeflow does not exist!", "start-job", "--config-file", hydra)
	if o := mustCLI(t, "get-clusters"); !strings.Contains(o, `"InstanceType": "ml.p5.48xlarge"`) || !strings.Contains(o, `"TotalNodes": 4`) {
		t.Fatalf("get-clusters:\n%s", o)
	}

	// Refused clearly, never "unknown flag".
	mustFail(t, exitInput, "does not run HyperPod recipes", "start-job", "--recipe", "fine-tuning/llama/hf_llama3_8b_seq8k_gpu_fine_tuning")
	mustFail(t, exitInput, "cannot select nodes by label", "start-job", "--job-name", "x", "-n", "product", "--command", "true",
		"--label-selector", `{"accelerator": "nvidia"}`)
	mustFail(t, exitInput, "kubectl exec", "exec", "--job-name", "hp-train", "-p", "hp-train-worker-0", "--", "ls")
	mustFail(t, exitInput, "only one option --pod or --all-pods", "exec", "--job-name", "hp-train", "--", "ls")

	// get-clusters: [{Cluster, Instances: [{InstanceType, TotalNodes, ...}]}].
	var clusters []struct {
		Cluster   string
		Instances []json.RawMessage
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "get-clusters", "-n", "hyperpod-ns-ml-engineers")), &clusters); err != nil || len(clusters) != 1 || len(clusters[0].Instances) != 1 {
		t.Fatalf("get-clusters: %v %+v", err, clusters)
	}
	wantKeys(t, "get-clusters instance", clusters[0].Instances[0], "InstanceType", "TotalNodes", "AcceleratorDevicesAvailable",
		"NodeHealthStatus=Schedulable", "DeepHealthCheckStatus=Passed", "Namespaces")

	// A name cannot reach another route: the client escapes it.
	mustFail(t, exitFailure, "", "cancel-job", "--job-name", "../nodes/p5-1/cordon?")
	mustFail(t, exitInput, "not a valid name", "cancel-job", "--job-name", "..")
	nodes, err := cl.Nodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Cordoned {
			t.Fatalf("node %s was cordoned through a job name", n.Name)
		}
	}

	// No -n: a member's token names its team; an admin's login namespace
	// (connect-cluster) is the default; a configured namespace addresses its team.
	member := strings.TrimSpace(mustCLI(t, "token", "create", "--role", "member", "--team", "hyperpod-ns-product"))
	mustCLI(t, "--token", member, "start-job", "--job-name", "member-job", "--command", "true", "--accelerators", "1")
	if m, err := cl.Task(context.Background(), "member-job"); err != nil || m.Team != "product" || m.Spec.ResumeCheckpoints {
		t.Fatalf("member job: %+v %v", m, err)
	}
	mustFail(t, exitInput, "no namespace given", "start-job", "--job-name", "admin-job", "--command", "true")
	mustCLI(t, "connect-cluster", "--cluster-name", "taskgov", "--namespace", "hyperpod-ns-product")
	mustCLI(t, "start-job", "--job-name", "admin-job", "--command", "true", "--accelerators", "1", "--resume-checkpoints")
	if a, err := cl.Task(context.Background(), "admin-job"); err != nil || !a.Spec.ResumeCheckpoints {
		t.Fatalf("--resume-checkpoints: %+v %v", a.Spec, err)
	}
	team := filepath.Join(dir, "mle.yaml")
	_ = os.WriteFile(team, []byte("name: mle\nnamespace: hyperpod-ns-machine-learning\nquotas: [{instanceType: ml.p5.48xlarge, gpus: 8}]\n"), 0o644)
	mustCLI(t, "team", "create", "mle", "-f", team)
	mustCLI(t, "start-job", "--job-name", "mle-job", "-n", "hyperpod-ns-machine-learning", "--command", "true", "--accelerators", "1")
	if o := mustCLI(t, "list-jobs", "-n", "hyperpod-ns-machine-learning"); !strings.Contains(o, `"Namespace": "hyperpod-ns-machine-learning"`) {
		t.Fatalf("a team's configured namespace: %s", o)
	}
	// cancel-job: HyperPod's prints what its delete returned, None, as
	// click echoes it: one empty line; the job is then gone.
	if o := mustCLI(t, "cancel-job", "--job-name", "hp-train", "-n", "hyperpod-ns-ml-engineers"); o != "\n" {
		t.Fatalf("cancel-job printed %q; HyperPod prints one empty line", o)
	}
	if _, err := cl.Task(context.Background(), "hp-train"); err == nil {
		t.Fatal("hp-train is still there after cancel-job")
	}
}
