package main

import (
	"strings"
	"testing"
)

// TestHypOtherResources runs, verbatim, the command lines of hyp's README
// (v3.9.0) for resources taskgov does not serve (spaces, their templates
// and access, inference endpoints, cluster stacks, recipe-job init): each
// is refused (exit 2) naming what the resource is and what taskgov does
// instead, whatever options follow, never with "unknown flag"; and before
// anything is written or submitted.
func TestHypOtherResources(t *testing.T) {
	cliServerWith(t, walkthroughCluster)
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	t.Chdir(t.TempDir())
	space := "spaces are interactive development environments"
	endpoint := "inference endpoints"
	stack := "cluster stacks are CloudFormation stacks"
	recipe := "SageMaker JumpStart Hub and S3"
	for _, c := range []struct {
		why  string
		line []string
	}{
		{space, []string{"create", "hyp-space", "--name", "myspace", "--namespace", "default", "--display-name", "My Space"}},
		{space, []string{"list", "hyp-space", "--namespace", "my-namespace"}},
		{space, []string{"list", "hyp-space", "--all-namespaces"}},
		{space, []string{"list", "hyp-space", "--output", "json"}},
		{space, []string{"describe", "hyp-space", "--name", "myspace"}},
		{space, []string{"get-logs", "hyp-space", "--name", "myspace"}},
		{space, []string{"delete", "hyp-space", "--name", "myspace"}},
		{"space templates configure spaces", []string{"create", "hyp-space-template", "--file", "template.yaml"}},
		{"space templates configure spaces", []string{"list", "hyp-space-template", "--all-namespaces"}},
		{"space access connects an IDE", []string{"create", "hyp-space-access", "--name", "myspace", "--connection-type", "vscode-remote"}},
		{"it starts spaces", []string{"start", "hyp-space", "--name", "myspace"}},
		{"forwards a space's port", []string{"portforward", "hyp-space", "--name", "myspace", "--local-port", "8080"}},
		{endpoint, []string{"create", "hyp-jumpstart-endpoint", "--version", "1.2", "--model-id", "jumpstart-model-id", "--instance-type", "ml.g5.8xlarge",
			"--endpoint-name", "endpoint-jumpstart"}},
		{endpoint, []string{"describe", "hyp-jumpstart-endpoint", "--name", "endpoint-jumpstart"}},
		{endpoint, []string{"get-logs", "hyp-jumpstart-endpoint", "--pod-name", "p"}},
		{endpoint, []string{"get-operator-logs", "hyp-custom-endpoint", "--since-hours", "0.5"}},
		{endpoint, []string{"delete", "hyp-custom-endpoint", "--name", "endpoint-custom"}},
		{endpoint, []string{"list-pods", "hyp-custom-endpoint"}},
		{endpoint, []string{"init", "hyp-custom-endpoint"}},
		{endpoint, []string{"invoke", "hyp-custom-endpoint", "--endpoint-name", "endpoint-custom-pytorch", "--body", `{"inputs":"What is the capital of USA?"}`}},
		{stack, []string{"list", "cluster-stack", "--region", "us-west-2"}},
		{stack, []string{"describe", "cluster-stack", "my-stack-name", "--region", "us-west-2"}},
		{stack, []string{"delete", "cluster-stack", "my-stack-name"}},
		{stack, []string{"init", "cluster-stack"}},
		{recipe, []string{"init", "hyp-recipe-job", ".", "--huggingface-model-id", "Qwen/Qwen3-0.6B", "--technique", "SFT", "--instance-type", "ml.g5.48xlarge"}},
		{recipe, []string{"init", "hyp-recipe-job", ".", "--model-id", "huggingface-reasoning-qwen3-06b", "--technique", "SFT", "--instance-type", "ml.g5.48xlarge"}},
		// The recipe guide's next step, where no config.yaml was written.
		{"No config.yaml found", []string{"configure", "--name", "my-recipe-job", "--namespace", "default", "--data-path", "/data/recipes-data/sft/train.jsonl",
			"--global-batch-size", "8", "--learning-rate", "0.0001", "--max-epochs", "1", "--output-path", "/data/output/my-model", "--instance-type", "ml.g5.48xlarge"}},
		{"taskgov serves hyp-pytorch-job", []string{"list", "no-such-resource"}},
	} {
		code := exitInput
		if c.why == "No config.yaml found" {
			code = exitFailure // hyp's init experience exits 1
		}
		errs := mustFail(t, code, c.why, c.line...)
		if strings.Contains(errs, "unknown flag") {
			t.Fatalf("hyp %s: %s", strings.Join(c.line, " "), errs)
		}
	}
	if o := mustCLI(t, "list", "hyp-pytorch-job", "-n", "hyperpod-ns-team-a"); strings.TrimSpace(o) != "No jobs found." {
		t.Fatalf("a refused line submitted something:\n%s", o)
	}
	// The verbs' own options still parse: hyp create's, and its errors.
	mustFail(t, exitFailure, "only for the cluster-stack template", "create", "--region", "us-west-2")
	mustFail(t, exitInput, "No such option: --no-such-option", "create", "--no-such-option")
	if o := mustCLI(t, "list", "--help"); !strings.Contains(o, "hyp-pytorch-job") {
		t.Fatalf("hyp list --help:\n%s", o)
	}
}

// TestHyperpodStartJobChoices: the v2 CLI's start-job takes --pull-policy,
// --restart-policy and --scheduler-type from fixed choices (click.Choice);
// any other value was accepted and the job submitted. It is now refused
// in click's words (exit 2) and nothing is submitted.
func TestHyperpodStartJobChoices(t *testing.T) {
	cliServerWith(t, walkthroughCluster)
	hyperpodMode = true
	t.Cleanup(func() { hyperpodMode = false })
	line := []string{"start-job", "--job-name", "chosen", "--namespace", "hyperpod-ns-team-a", "--instance-type", "ml.g5.12xlarge",
		"--command", "true", "--entry-script", "train.py"}
	mustFail(t, exitInput, "Invalid value for '--pull-policy': 'Sometimes' is not one of 'Always', 'IfNotPresent', 'Never'.", append(line, "--pull-policy", "Sometimes")...)
	mustFail(t, exitInput, "Invalid value for '--restart-policy': 'Sometimes' is not one of 'Always', 'OnFailure', 'Never', 'ExitCode'.",
		append(line, "--restart-policy", "Sometimes")...)
	mustFail(t, exitInput, "Invalid value for '--scheduler-type': 'Volcano' is not one of 'Kueue', 'SageMaker', 'None'.", append(line, "--scheduler-type", "Volcano")...)
	if o := mustCLI(t, "list-jobs", "-n", "hyperpod-ns-team-a"); strings.Contains(o, "chosen") {
		t.Fatalf("a refused start-job submitted its job:\n%s", o)
	}
	mustCLI(t, append(line, "--pull-policy", "Always", "--restart-policy", "OnFailure", "--scheduler-type", "Kueue")...)
}

// TestHypClusterAndVersionLines: `hyp describe cluster NAME` (v3.3.1)
// describes the server's cluster; `hyp get-monitoring` names its metrics
// and dashboard; a job or namespace not found is worded as hyp words it; the schema version hyp takes without
// --version is the newest (it prints "Using version: 1.1"), and under
// --version 1.0 a 1.1 option does not exist; an option the command line
// cannot parse is a usage error (exit 2) as click's are, not a failure.
func TestHypClusterAndVersionLines(t *testing.T) {
	cliServerWith(t, walkthroughCluster)
	hypMode = true
	t.Cleanup(func() { hypMode = false })

	o := mustCLI(t, "describe", "cluster", "taskgov", "--region", "us-west-2")
	for _, want := range []string{"📋 Cluster Details for: taskgov\nStatus: InService\n", " ClusterStatus  | InService\n",
		`"InstanceType": "ml.g5.12xlarge"`, `"CurrentCount": 2`, `"AcceleratorDevices": 8`} {
		if !strings.Contains(o, want) {
			t.Fatalf("hyp describe cluster: no %q in\n%s", want, o)
		}
	}
	mustFail(t, exitFailure, "Cluster 'my-cluster-name' not found", "describe", "cluster", "my-cluster-name")

	line := []string{"create", "hyp-pytorch-job", "--job-name", "v11", "--namespace", "hyperpod-ns-team-a", "--image", "pytorch/pytorch:latest",
		"--command", "[sleep, 30]", "--instance-type", "ml.g5.12xlarge", "--replica-count", "1", "--accelerators", "2"}
	if o := mustCLI(t, line...); !strings.HasPrefix(o, "Using version: 1.1\n") {
		t.Fatalf("hyp create without --version:\n%s", o)
	}
	mustFail(t, exitInput, "No such option: --replica-count", append([]string{"create", "hyp-pytorch-job", "--version", "1.0"}, line[2:]...)...)
	mustFail(t, exitFailure, "Unsupported schema version: 1.2", append([]string{"create", "hyp-pytorch-job", "--version", "1.2"}, line[2:]...)...)
	if o := mustCLI(t, "create", "hyp-pytorch-job", "--version", "1.0", "--job-name", "v10", "--namespace", "hyperpod-ns-team-b",
		"--image", "pytorch/pytorch:latest", "--command", "[sleep, 30]", "--node-count", "1"); !strings.HasPrefix(o, "Using version: 1.0\n") {
		t.Fatalf("hyp create --version 1.0:\n%s", o)
	}

	// Not found, in hyp's words: a job (with the list command to run), a
	// job of another namespace, a namespace.
	mustFail(t, exitFailure, "❓ Pytorch Job 'no-such-job' not found. Please check the resource name and try again. Use 'hyp list hyp-pytorch-job' to see available resources.",
		"describe", "hyp-pytorch-job", "--job-name", "no-such-job", "-n", "default")
	mustFail(t, exitFailure, "❓ Recipe Job 'v11' not found in namespace 'hyperpod-ns-team-b'. Please check the resource name and try again. Use 'hyp list hyp-recipe-job --namespace hyperpod-ns-team-b' to see available resources. (it is in hyperpod-ns-team-a)",
		"delete", "hyp-recipe-job", "--job-name", "v11", "--namespace", "hyperpod-ns-team-b")
	mustFail(t, exitFailure, "❌ Namespace 'my-namespace' does not exist on this cluster. Use 'hyp list hyp-pytorch-job' to check for available resources.",
		"list", "hyp-pytorch-job", "-n", "my-namespace")
	mustFail(t, exitFailure, "❌ Namespace 'my-namespace' does not exist on this cluster. Please create the namespace first",
		"create", "hyp-pytorch-job", "--job-name", "x", "--image", "i", "--command", "[true]", "--namespace", "my-namespace")

	// hyp get-monitoring: the server's metrics and dashboard, and its
	// metrics' names read from /metrics.
	mustFail(t, exitInput, "Please select at least one option", "get-monitoring")
	o = mustCLI(t, "get-monitoring", "--grafana", "--prometheus", "--list")
	for _, want := range []string{"/metrics\n", "it has no Grafana): http://", "/ui\n", " Metric ", " taskgov_capacity_gpus ", "| gauge\n"} {
		if !strings.Contains(o, want) {
			t.Fatalf("hyp get-monitoring: no %q in\n%s", want, o)
		}
	}

	// hyp's own checks of its options: a required image, counts of at
	// least one, an environment in JSON.
	create := []string{"create", "hyp-pytorch-job", "--job-name", "checked", "--namespace", "hyperpod-ns-team-a", "--command", "[true]"}
	mustFail(t, exitInput, "Missing option '--image'", create...)
	mustFail(t, exitInput, "Missing option '--image'", append(create, "--image", "")...)
	create = append(create, "--image", "pytorch/pytorch:latest")
	mustFail(t, exitInput, "node_count: Input should be greater than or equal to 1", append(create, "--node-count", "0")...)
	mustFail(t, exitInput, "replica_count: Input should be greater than or equal to 1", append(create, "--replica-count", "-1")...)
	mustFail(t, exitInput, "'environment' must be valid JSON", append(create, "--environment", "LOGLEVEL=INFO")...)
	if o := mustCLI(t, "list", "hyp-pytorch-job", "-n", "hyperpod-ns-team-a"); strings.Contains(o, "checked") {
		t.Fatalf("a refused create submitted its job:\n%s", o)
	}

	// hyp exec's own checks, before the refusal with the kubectl line.
	mustFail(t, exitInput, "Must specify exactly one of the following: --all-pods, --pod", "exec", "hyp-pytorch-job", "--job-name", "v11", "--", "nvidia-smi")
	mustFail(t, exitInput, "Must specify exactly one of the following: --all-pods, --pod", "exec", "hyp-pytorch-job", "--job-name", "v11",
		"--pod", "v11-pod-0", "--all-pods", "--", "nvidia-smi")
	mustFail(t, exitInput, "Missing argument 'COMMAND...'", "exec", "hyp-pytorch-job", "--job-name", "v11", "--pod", "v11-pod-0")
	mustFail(t, exitInput, "kubectl exec -n hyperpod-ns-team-a $p -- nvidia-smi", "exec", "hyp-pytorch-job", "--job-name", "v11", "--pod", "v11-pod-0", "--", "nvidia-smi")

	mustFail(t, exitInput, "No such option: -o", "list", "hyp-pytorch-job", "-o", "json")
	mustFail(t, exitInput, "Invalid value for '--node-count': 'two' is not a valid integer.", "create", "hyp-pytorch-job", "--job-name", "x", "--node-count", "two")
	mustFail(t, exitInput, "Option '--job-name' requires an argument.", "describe", "hyp-pytorch-job", "--job-name")
}
