package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/testwait"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/cli/*.golden with the output produced")

const cliCluster = `
nodeGroups:
  - {name: p5, instanceType: ml.p5.48xlarge, count: 4, topology: {nodesPerLayer3: 2, layer3PerLayer2: 2, layer2PerLayer1: 1}}
policy:
  taskPrioritization: TaskRanking
  preemption: Immediate
  priorityClasses: [{name: inference, weight: 90}, {name: training, weight: 70}, {name: fine-tuning, weight: 50}]
teams:
  - {name: ml-engineers, fairShareWeight: 50, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
  - {name: product, fairShareWeight: 50, lending: Lend, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
`

// cliServer starts a real server in-process and points the CLI at it.
func cliServer(t *testing.T) (dir string) {
	t.Helper()
	return cliServerWith(t, cliCluster)
}

// cliServerWith is cliServer with another cluster file.
func cliServerWith(t *testing.T, cluster string) (dir string) {
	t.Helper()
	dir = t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	_ = os.WriteFile(cfg, []byte(cluster), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	logf, _ := os.Create(filepath.Join(dir, "server.log"))
	go func() {
		errc <- runServer(ctx, serverOptions{config: cfg, dataDir: dir, listen: "127.0.0.1:0", logTo: logf, sampleInterval: 100 * time.Millisecond},
			func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-errc:
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); <-errc; logf.Close() })
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	t.Setenv("TASKGOV_SERVER", "http://"+addr)
	t.Setenv("TASKGOV_TOKEN", strings.TrimSpace(string(tok)))
	t.Setenv("TASKGOV_CONFIG", filepath.Join(dir, "cli.yaml"))
	return dir
}

// cli runs one command line in-process and returns stdout, stderr and the
// exit code main would use.
func cli(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	root := newRootCmd()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SilenceErrors = true
	if err := execute(root, args); err != nil {
		errb.WriteString(err.Error())
		return out.String(), errb.String(), exitCode(err)
	}
	return out.String(), errb.String(), 0
}

func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := cli(t, args...)
	if code != 0 {
		t.Fatalf("taskgov %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

var normalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "<time>"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+00:00`), "<time>"},
	{regexp.MustCompile(`\b\d\d:\d\d:\d\d\b`), "<clock>"},
	{regexp.MustCompile(`tok-[0-9a-f]{12}`), "<token-id>"},
	{regexp.MustCompile(`  \d+[smhd]  `), "  <age>  "},
	{regexp.MustCompile(`"seq": \d+`), `"seq": <n>`},
	{regexp.MustCompile(`(idempotencyKey"?: "?)[0-9a-f]{32}`), "${1}<key>"},
}

// golden compares normalized output with testdata/cli/name.golden.
func golden(t *testing.T, name, got string) {
	t.Helper()
	for _, n := range normalizers {
		got = n.re.ReplaceAllString(got, n.with)
	}
	path := filepath.Join("testdata", "cli", name+".golden")
	if *updateGolden {
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/taskgov -run TestCLI -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (rerun with -update and review):\n--- got\n%s--- want\n%s", name, path, got, want)
	}
}

func waitJob(t *testing.T, name, state string) {
	t.Helper()
	last := "unknown"
	err := testwait.Until(15*time.Second, 50*time.Millisecond, func() bool {
		cl, err := apiClient()
		if err != nil {
			return false
		}
		task, err := cl.Task(context.Background(), name)
		if err != nil {
			last = err.Error()
			return false
		}
		last = string(task.State) + " (" + task.Message + ")"
		return string(task.State) == state
	})
	if err != nil {
		t.Fatalf("job %s did not reach %s: %v; it is %s", name, state, err, last)
	}
}

// TestCLIEndToEnd drives a real server through the CLI: submit, list,
// priority change, suspend, resume, cancel, logs, HyperPod command lines, the
// admin verbs, and a non-admin refused with a clear message. Table and JSON
// outputs are compared with golden files.
func TestCLIEndToEnd(t *testing.T) {
	dir := cliServer(t)
	mustCLI(t, "start-job", "--job-name", "pretrain", "-n", "hyperpod-ns-ml-engineers", "--instance-type", "ml.p5.48xlarge",
		"--node-count", "2", "--priority", "training", "--command", "echo rank=$RANK of $WORLD_SIZE; sleep 30")
	waitJob(t, "pretrain", "Running")
	mustCLI(t, "start-job", "--job-name", "sweep", "-n", "ml-engineers", "--priority", "fine-tuning",
		"--accelerators", "4", "--node-count", "3", "--command", "sleep 30")
	waitJob(t, "sweep", "Pending")

	golden(t, "list-jobs.table", mustCLI(t, "list-jobs", "-A"))
	golden(t, "list-jobs.json", mustCLI(t, "list-jobs", "-n", "hyperpod-ns-ml-engineers", "-o", "json"))
	golden(t, "list-jobs.yaml", mustCLI(t, "list-jobs", "-A", "-o", "yaml", "-l", "state=Pending"))
	golden(t, "list-jobs.pending", mustCLI(t, "list-jobs", "--pending"))
	golden(t, "list-pods.table", mustCLI(t, "list-pods", "--job-name", "pretrain"))
	golden(t, "list-pods.json", mustCLI(t, "list-pods", "--job-name", "pretrain", "-o", "json"))
	golden(t, "get-job.table", mustCLI(t, "get-job", "--job-name", "sweep"))
	// The Started event is recorded once the executor has started the pods,
	// a moment after the task turns Running: wait for it before the snapshot.
	waitFor(t, 15*time.Second, func() bool {
		return strings.Contains(mustCLI(t, "get-job", "--job-name", "pretrain", "--verbose"), "Started")
	})
	golden(t, "get-job.verbose", mustCLI(t, "get-job", "--job-name", "pretrain", "--verbose"))
	golden(t, "team-list.table", mustCLI(t, "team", "list"))
	golden(t, "team-list.json", mustCLI(t, "team", "list", "-o", "json"))
	golden(t, "team-describe.table", mustCLI(t, "team", "describe", "ml-engineers"))
	golden(t, "node-list.table", mustCLI(t, "node", "list"))
	golden(t, "policy-get.table", mustCLI(t, "policy", "get"))
	golden(t, "policy-get.json", mustCLI(t, "policy", "get", "-o", "json"))
	golden(t, "priority-class-list.table", mustCLI(t, "priority-class", "list"))
	golden(t, "topology.table", mustCLI(t, "topology"))
	golden(t, "topology.json", mustCLI(t, "topology", "-o", "json"))
	golden(t, "get-job.json", mustCLI(t, "get-job", "--job-name", "sweep", "-o", "json"))
	golden(t, "node-list.json", mustCLI(t, "node", "list", "-o", "json"))
	golden(t, "team-describe.json", mustCLI(t, "team", "describe", "ml-engineers", "-o", "json"))
	golden(t, "priority-class-list.json", mustCLI(t, "priority-class", "list", "-o", "json"))
	golden(t, "start-job.table", mustCLI(t, "start-job", "--job-name", "eval", "-n", "product", "--priority", "inference",
		"--accelerators", "1", "--command", "true"))

	// Priority change, suspend, resume, cancel.
	if out := mustCLI(t, "patch-job", "priority", "--job-name", "sweep", "--priority", "inference"); !strings.Contains(out, "sweep: priority") {
		t.Fatalf("priority: %s", out)
	}
	mustCLI(t, "cancel-job", "--job-name", "sweep")
	waitJob(t, "sweep", "Cancelled")
	mustCLI(t, "patch-job", "suspend", "--job-name", "pretrain")
	waitJob(t, "pretrain", "Suspended")
	mustCLI(t, "patch-job", "unsuspend", "--job-name", "pretrain")
	waitJob(t, "pretrain", "Running")
	// Running is committed before the pods start, so the second run's log
	// lines may trail the state by a moment.
	var logs string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		logs = mustCLI(t, "get-log", "--job-name", "pretrain", "--pod", "pretrain-1")
		if strings.Count(logs, "rank=1 of 2") >= 2 && strings.Contains(logs, "run 2 of pretrain") {
			break
		}
	}
	if !strings.Contains(logs, "rank=1 of 2") || !strings.Contains(logs, "run 2 of pretrain") {
		t.Fatalf("logs of pod 1 across two runs:\n%s", logs)
	}

	// HyperPod command lines, through a link named hyperpod.
	hyperpodMode = true
	defer func() { hyperpodMode = false }()
	mustCLI(t, "start-job", "--name", "smpv2-llama2", "--namespace", "hyperpod-ns-ml-engineers", "--entry-script", "/bin/true",
		"--image", "ignored:latest", "--pull-policy", "IfNotPresent")
	waitJob(t, "smpv2-llama2", "Succeeded")
	out := mustCLI(t, "list-jobs", "--all-namespaces")
	for _, want := range []string{`"jobs": [`, `"Name": "smpv2-llama2"`, `"Namespace": "hyperpod-ns-ml-engineers"`, `"CreationTime": "`, `"State": "Succeeded"`} {
		if !strings.Contains(out, want) {
			t.Fatalf("hyperpod list-jobs lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"Priority"`) {
		t.Fatalf("hyperpod list-jobs writes Priority; HyperPod writes priority, and only when set:\n%s", out)
	}
	golden(t, "hyperpod-list-jobs.json", out)
	hyperpodMode = false

	// Admin verbs, and apply is idempotent.
	mustCLI(t, "team", "create", "research", "--quota", "ml.p5.48xlarge:gpus=8", "--weight", "20", "--lending", "DontLend")
	if out := mustCLI(t, "team", "describe", "research", "-o", "json"); !strings.Contains(out, `"lending": "DontLend"`) {
		t.Fatalf("team create: %s", out)
	}
	mustCLI(t, "priority-class", "create", "experimentation", "--weight", "80")
	mustCLI(t, "node", "cordon", "p5-3")
	applied := filepath.Join(dir, "cluster.yaml")
	first := mustCLI(t, "apply", "-f", applied)
	second := mustCLI(t, "apply", "-f", applied)
	if !strings.Contains(first, "policy configured") || strings.Contains(second, "configured") || !strings.Contains(second, "team product unchanged") {
		t.Fatalf("apply is not idempotent:\nfirst:\n%s\nsecond:\n%s", first, second)
	}

	// A non-admin is refused with a clear message and exit code 3.
	member := strings.TrimSpace(mustCLI(t, "token", "create", "--role", "member", "--team", "product"))
	_, errs, code := cli(t, "--token", member, "team", "delete", "ml-engineers")
	if code != exitAuth || !strings.Contains(errs, "may not do that") || !strings.Contains(errs, "ask an admin") {
		t.Fatalf("non-admin team delete: exit %d: %s", code, errs)
	}
	_, errs, code = cli(t, "--token", member, "get-job", "--job-name", "pretrain")
	if code != exitNotFound || !strings.Contains(errs, "not found") {
		t.Fatalf("member of product reading ml-engineers' job: exit %d: %s", code, errs)
	}
	_, errs, code = cli(t, "start-job", "--job-name", "Bad_Name", "-n", "product", "--command", "true")
	if code != exitInput || !strings.Contains(errs, "DNS label") || strings.Contains(errs, "goroutine") {
		t.Fatalf("bad name: exit %d: %s", code, errs)
	}
	golden(t, "token-list.table", mustCLI(t, "token", "list"))
	golden(t, "token-list.json", mustCLI(t, "token", "list", "-o", "json"))

	// login writes the config file with mode 0600.
	tok := os.Getenv("TASKGOV_TOKEN")
	mustCLI(t, "login", "--server", os.Getenv("TASKGOV_SERVER"), "--token", tok)
	fi, err := os.Stat(filepath.Join(dir, "cli.yaml"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v %v", fi, err)
	}
}

// TestPolicySetKnobs: policy set changes only the settings given as flags,
// and refuses bad values with the flag and the fix.
func TestPolicySetKnobs(t *testing.T) {
	cliServer(t)
	mustCLI(t, "policy", "set", "--preemption-delay", "10m", "--starvation-bound", "45m", "--restart-cost", "90s",
		"--fair-share-min-runtime", "2m", "--fair-share-rebalance=false", "--victim-order", "MostRecentlyStarted")
	var p model.Policy
	if err := json.Unmarshal([]byte(mustCLI(t, "policy", "get", "-o", "json")), &p); err != nil {
		t.Fatal(err)
	}
	if p.PreemptionDelaySeconds != 600 || *p.StarvationBoundSeconds != 2700 || *p.RestartCostSeconds != 90 ||
		*p.FairShareMinRuntimeSeconds != 120 || *p.FairShareRebalance || p.VictimOrder != model.MostRecentlyStarted {
		t.Fatalf("policy after set: %+v", p)
	}
	if p.TaskPrioritization != model.TaskRanking || len(p.PriorityClasses) != 3 || !*p.BorrowUnallocated {
		t.Fatalf("policy set changed settings it was not given: %+v", p)
	}
	if _, errs, code := cli(t, "policy", "set", "--restart-cost", "1500ms"); code == 0 || !strings.Contains(errs, "--restart-cost") {
		t.Fatalf("a fractional restart cost: %d %s", code, errs)
	}
	if _, errs, code := cli(t, "policy", "set", "--victim-order", "Random"); code == 0 || !strings.Contains(errs, "victimOrder") {
		t.Fatalf("an unknown victim order: %d %s", code, errs)
	}
	if out := mustCLI(t, "policy", "set", "--max-pending-per-team", "5000"); !strings.Contains(out, "maxPendingPerTeam: 100000 -> 5000") {
		t.Fatalf("set the pending cap:\n%s", out)
	}
	if out := mustCLI(t, "policy", "get"); !strings.Contains(out, "Max pending per team:        5000\n") {
		t.Fatalf("get after the pending cap:\n%s", out)
	}
	if _, errs, code := cli(t, "policy", "set", "--max-pending-per-team", "0"); code == 0 || !strings.Contains(errs, "--max-pending-per-team") {
		t.Fatalf("a pending cap of 0: %d %s", code, errs)
	}
}
