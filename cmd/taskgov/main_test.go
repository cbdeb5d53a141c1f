package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/sim"
)

// buildBinary compiles taskgov once for the CLI tests, which run it as a real
// child process.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "taskgov")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

func TestCLI(t *testing.T) {
	bin := buildBinary(t)
	run := func(args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		out, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}

	out, code := run("scenario", "demo")
	if code != 0 || !strings.Contains(out, "Reclaim for serve") || !strings.Contains(out, "wait ") {
		t.Fatalf("scenario demo: exit %d\n%s", code, out)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	_ = os.WriteFile(bad, []byte("teams:\n  - {name: a, fairShareWeight: 150}\n"), 0o644)
	out, code = run("validate", bad)
	if code != exitInput || !strings.Contains(out, "teams[0].fairShareWeight: 150 is out of range") || strings.Contains(out, "goroutine") {
		t.Fatalf("validate bad file: exit %d\n%s", code, out)
	}
	good := filepath.Join(dir, "good.yaml")
	_ = os.WriteFile(good, []byte("nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 3}]\nteams: [{name: a}]\n"), 0o644)
	if out, code = run("validate", good); code != 0 || !strings.Contains(out, "ok (3 nodes, 1 teams)") {
		t.Fatalf("validate good file: exit %d\n%s", code, out)
	}
	if out, code = run("scenario", "run", "../../internal/scenario/testdata/reclaim-basic.yaml"); code != 0 || !strings.Contains(out, "preempt b2 (b) Reclaim for a1") {
		t.Fatalf("scenario run: exit %d\n%s", code, out)
	}
	topo := filepath.Join(dir, "topo.yaml")
	_ = os.WriteFile(topo, []byte("nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 8,\n  topology: {nodesPerLayer3: 4, layer3PerLayer2: 2, layer2PerLayer1: 1}}]\nteams: [{name: a}]\n"), 0o644)
	if out, code = run("topology", topo); code != 0 || !strings.Contains(out, "layer-3 p5-nn3-1") || !strings.Contains(out, "p5-7") {
		t.Fatalf("topology: exit %d\n%s", code, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if len([]rune(line)) > 100 {
			t.Fatalf("topology line wider than 100 columns: %q", line)
		}
	}
	if out, code = run("topology", topo, "-o", "json"); code != 0 || !strings.Contains(out, `"freeGPUs": 64`) {
		t.Fatalf("topology json: exit %d\n%s", code, out)
	}
	if _, code = run("topology", topo, "-o", "xml"); code != exitInput {
		t.Fatalf("topology -o xml: exit %d, want %d", code, exitInput)
	}
	if _, code = run("scenario", "run", filepath.Join(dir, "missing.yaml")); code != exitFailure {
		t.Fatalf("missing scenario file: exit %d, want %d", code, exitFailure)
	}

	// The links: named hyp, the binary is HyperPod's hyp CLI; named
	// hyperpod, its BOOL options take a value. With no server configured,
	// the command gets as far as asking for one.
	for _, link := range []string{"hyp", "hyperpod"} {
		if err := os.Symlink(bin, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	linked := func(name string, args ...string) (string, int) {
		cmd := exec.Command(filepath.Join(dir, name), args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TASKGOV_CONFIG=" + filepath.Join(dir, "none.yaml")}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		}
		return string(out), 0
	}
	if out, code := linked("hyp", "create", "--help"); code != 0 || !strings.Contains(out, "hyp-pytorch-job") || !strings.Contains(out, "Usage:\n  hyp create") {
		t.Fatalf("hyp create --help: exit %d\n%s", code, out)
	}
	if out, code := linked("hyperpod", "start-job", "--job-name", "x", "--auto-resume", "true", "--deep-health-check-passed-nodes-only", "false",
		"--command", "true"); code != exitInput || !strings.Contains(out, "no taskgov server given") {
		t.Fatalf("hyperpod start-job --auto-resume true: exit %d\n%s", code, out)
	}
	if out, code := linked("hyp", "create", "hyp-pytorch-job", "--job-name", "x", "--deep-health-check-passed-nodes-only", "true",
		"--image", "i", "--command", "[true]"); code != exitInput || !strings.Contains(out, "no taskgov server given") {
		t.Fatalf("hyp create --deep-health-check-passed-nodes-only true: exit %d\n%s", code, out)
	}
	// --version, in each CLI's shape (click's for hyperpod).
	for name, want := range map[string]string{"hyp": "hyp version: ", "hyperpod": "hyperpod, version ", "taskgov": "taskgov version "} {
		cmd := filepath.Join(dir, name)
		if name == "taskgov" {
			cmd = bin
		}
		if out, err := exec.Command(cmd, "--version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), want) {
			t.Fatalf("%s --version: %v\n%s", name, err, out)
		}
	}
}

// TestLiveDemo runs the README's main command end to end: a real server,
// the training job preempted and resumed from its checkpoint.
func TestLiveDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the live demo (about 20 s)")
	}
	bin := buildBinary(t)
	out, err := exec.Command(bin, "demo", "--data-dir", t.TempDir()).CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	for _, want := range []string{"preempted (Reclaim) for chat-serving", "resuming from checkpoint at step", "training finished at step 40"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// TestSimCommands runs sim gen, run and compare end to end and checks the
// report files.
func TestSimCommands(t *testing.T) {
	dir := t.TempDir()
	trace, cluster, out := filepath.Join(dir, "t.csv"), filepath.Join(dir, "c.yaml"), filepath.Join(dir, "out")
	mustCLI(t, "sim", "gen", "--jobs", "200", "--gpus", "64", "--trace", trace, "--cluster", cluster)
	text := mustCLI(t, "sim", "run", "--cluster", cluster, "--trace", trace, "--out", out, "--wait-reasons")
	if !strings.Contains(text, "tasks 200/200 completed") {
		t.Fatalf("sim run: %s", text)
	}
	for _, f := range []string{"report.json", "report.html"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || len(b) < 500 {
			t.Fatalf("%s: %v", f, err)
		}
		if f == "report.html" && (strings.Contains(string(b), "<script") || strings.Contains(string(b), "http://") && !strings.Contains(string(b), "xmlns=\"http://www.w3.org/2000/svg\"")) {
			t.Fatalf("report.html is not self-contained")
		}
	}
	// jobs.csv: one row per job, whose waits add up to report.json's mean,
	// with its time pending by reason (--wait-reasons).
	jf, err := os.Open(filepath.Join(out, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer jf.Close()
	rows, err := csv.NewReader(jf).ReadAll()
	if err != nil || len(rows) != 201 || rows[0][8] != "wait_s" {
		t.Fatalf("jobs.csv: %d rows, %v", len(rows), err)
	}
	var rep struct {
		Wait struct {
			MeanS float64 `json:"mean_s"`
		} `json:"wait"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "report.json"))
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	sum, reasons := 0.0, 0
	for _, r := range rows[1:] {
		if strings.Contains(r[14], "=") {
			reasons++
		}
		w, err := strconv.ParseFloat(r[8], 64)
		if err != nil || w < 0 {
			t.Fatalf("jobs.csv row %v: wait %q", r, r[8])
		}
		sum += w
	}
	if reasons == 0 || !strings.Contains(string(b), "wait_reasons_by_priority") {
		t.Fatalf("--wait-reasons: %d jobs.csv rows with reasons", reasons)
	}
	if math.Abs(sum/200-rep.Wait.MeanS) > 1e-6*(1+rep.Wait.MeanS) {
		t.Fatalf("jobs.csv mean wait %v, report.json %v", sum/200, rep.Wait.MeanS)
	}
	cmp := mustCLI(t, "sim", "compare", "--cluster", cluster, "--trace", trace)
	if !strings.Contains(cmp, "victims: most recently started") || !strings.Contains(cmp, "preemption delay 10 min") ||
		!strings.Contains(cmp, "| wait mean s: inference |") ||
		!strings.Contains(cmp, "| completed | 200/200 | 200/200 | 200/200 | 200/200 | 200/200 | 200/200 | 200/200 |") {
		t.Fatalf("sim compare:\n%s", cmp)
	}
	_, errs, code := cli(t, "sim", "run", "--cluster", cluster, "--trace", filepath.Join(dir, "missing.csv"), "--out", out)
	if code == 0 || !strings.Contains(errs, "missing.csv") {
		t.Fatalf("missing trace: %d %s", code, errs)
	}
	if text := mustCLI(t, "sim", "run", "--cluster", cluster, "--trace", trace, "--out", out, "--check-invariants", "1"); !strings.Contains(text, "tasks 200/200 completed") {
		t.Fatalf("sim run --check-invariants 1: %s", text)
	}
	if _, errs, code := cli(t, "sim", "run", "--cluster", cluster, "--trace", trace, "--out", out, "--check-invariants", "-1"); code == 0 || !strings.Contains(errs, "--check-invariants") {
		t.Fatalf("--check-invariants -1: %d %s", code, errs)
	}
	// A deep-backlog trace: whole-node jobs, a backlog at time 0.
	deep := filepath.Join(dir, "deep.csv")
	mustCLI(t, "sim", "gen", "--jobs", "300", "--gpus", "64", "--load", "1.1", "--backlog", "100", "--mix", "nodes", "--trace", deep, "--cluster", cluster)
	jobs, err := sim.ReadTrace(deep)
	if err != nil || len(jobs) != 300 {
		t.Fatalf("deep trace: %d jobs, %v", len(jobs), err)
	}
	for i, j := range jobs {
		if j.GPUsPerNode != 8 || (i < 100) != (j.SubmitS == 0) {
			t.Fatalf("deep trace job %d: %+v", i, j)
		}
	}
	for _, bad := range [][]string{{"--mix", "tiny"}, {"--backlog", "301"}, {"--backlog", "-1"}} {
		_, errs, code := cli(t, append([]string{"sim", "gen", "--jobs", "300", "--trace", deep, "--cluster", cluster}, bad...)...)
		if code == 0 || !strings.Contains(errs, bad[0]) {
			t.Fatalf("sim gen %v: exit %d, %q; want an error naming %s", bad, code, errs, bad[0])
		}
	}
}

// TestSimKueueBaseline runs the Kueue baseline command with its breakdown
// and checks that report.json carries both times to admission, named, and
// that the breakdown says what used the room large work left.
func TestSimKueueBaseline(t *testing.T) {
	out := filepath.Join(t.TempDir(), "kb")
	text := mustCLI(t, "sim", "kueue-baseline", "--preemption-delay", "0", "--breakdown", "--out", out)
	if !strings.Contains(text, "to last admission: small s") || !strings.Contains(text, "| lower bound (one cohort) | 66.8 |") ||
		!strings.Contains(text, "(preemption Immediate, delay 0s)") || !strings.Contains(text, "Room large work left while large workloads arrived (1.2-60.0 s)") ||
		!strings.Contains(text, "- all rerun runs: ") {
		t.Fatalf("kueue-baseline: %s", text)
	}
	if _, errs, code := cli(t, "sim", "kueue-baseline", "--preemption", "Sometimes"); code == 0 || !strings.Contains(errs, "use Immediate") {
		t.Fatalf("a bad --preemption: %d %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Wait struct {
			ByPriority map[string]struct{ N int } `json:"by_priority"`
		} `json:"wait"`
		WaitLast struct {
			ByPriority map[string]struct{ N int } `json:"by_priority"`
		} `json:"wait_last_admission"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"small", "medium", "large"} {
		if r.Wait.ByPriority[c].N == 0 || r.WaitLast.ByPriority[c].N != r.Wait.ByPriority[c].N {
			t.Fatalf("class %s: first %+v last %+v", c, r.Wait.ByPriority[c], r.WaitLast.ByPriority[c])
		}
	}
}
