package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sim"
	"github.com/taskgov/taskgov/internal/usage"
)

// TestSimExportReplaysLiveWork runs real work on a real server (a 3-node gang
// that borrows a node, reclaimed by its lender's 2-node job, then resumed),
// exports the cluster and the trace, and replays them: every job is there,
// the gang's duration is its last run (it reported no checkpoint, so each
// run began from scratch), and the replay reproduces the reclaim; sim
// compare weighs a candidate policy file against the exported one; a job
// still running from before a short window is carried in at its start. A
// member's token is refused with the fix.
func TestSimExportReplaysLiveWork(t *testing.T) {
	dir := cliServer(t)
	mustCLI(t, "start-job", "--job-name", "quick", "-n", "ml-engineers", "--node-count", "1", "--command", "sleep 0.2", "--instance-type", "ml.p5.48xlarge")
	waitJob(t, "quick", "Succeeded")
	mustCLI(t, "start-job", "--job-name", "wide", "-n", "ml-engineers", "--node-count", "3", "--priority", "training",
		"--command", "sleep 2", "--instance-type", "ml.p5.48xlarge")
	waitJob(t, "wide", "Running")
	time.Sleep(1500 * time.Millisecond) // the first run, lost to the reclaim, is long enough to tell apart
	reclaimed := time.Now()
	mustCLI(t, "start-job", "--job-name", "serve", "-n", "product", "--node-count", "2", "--priority", "inference",
		"--command", "sleep 0.2", "--instance-type", "ml.p5.48xlarge")
	waitJob(t, "wide", "Succeeded")
	lastRun := time.Since(reclaimed).Seconds() // the last run lies wholly in this span, however slow the machine

	trace, cluster := filepath.Join(dir, "t.csv"), filepath.Join(dir, "c.yaml")
	out := mustCLI(t, "sim", "export", "--since", "1h", "--trace", trace, "--cluster", cluster)
	if !strings.Contains(out, "wrote 3 jobs") || !strings.Contains(out, "(4 nodes, 2 teams)") {
		t.Fatalf("export:\n%s", out)
	}
	t.Logf("export:\n%s", out)
	jobs, err := sim.ReadTrace(trace)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]sim.Job{}
	for _, j := range jobs {
		byName[j.Name] = j
	}
	w := byName["wide"]
	if w.Nodes != 3 || w.Team != "ml-engineers" || w.Priority != "training" || w.CheckpointIntervalS != 0 || w.DurationS < 1.9 || w.DurationS > lastRun {
		t.Fatalf("wide exported as %+v; want 3 nodes, training, no checkpoints, its last run: at least 2 s and at most %.2f s", w, lastRun)
	}
	if s := byName["serve"]; s.SubmitS <= w.SubmitS || s.SubmitS > w.SubmitS+w.DurationS {
		t.Fatalf("serve submitted at %v, wide at %v for %v s: the reclaim would not replay", s.SubmitS, w.SubmitS, w.DurationS)
	}
	rep := mustCLI(t, "sim", "run", "--cluster", cluster, "--trace", trace, "--out", filepath.Join(dir, "replay"))
	if !strings.Contains(rep, "tasks 3/3 completed") || !strings.Contains(rep, "preemptions 1 ") {
		t.Fatalf("replay:\n%s", rep)
	}
	t.Logf("replay:\n%s", rep)
	mustCLI(t, "validate", cluster)
	cand := filepath.Join(dir, "fcfs.yaml")
	_ = os.WriteFile(cand, []byte("taskPrioritization: FirstComeFirstServe\npriorityClasses: [{name: inference, weight: 90}, {name: training, weight: 70}]\n"), 0o644)
	cmp := mustCLI(t, "sim", "compare", "--cluster", cluster, "--trace", trace, "--candidate", cand)
	if !strings.Contains(cmp, "| measure | as configured | fcfs.yaml |") || !strings.Contains(cmp, "| completed | 3/3 | 3/3 |") {
		t.Fatalf("compare with a candidate:\n%s", cmp)
	}
	_ = os.WriteFile(cand, []byte("taskPrioritization: Sometimes\n"), 0o644)
	if _, errs, code := cli(t, "sim", "compare", "--cluster", cluster, "--trace", trace, "--candidate", cand); code == 0 || !strings.Contains(errs, "fcfs.yaml") {
		t.Fatalf("a bad candidate: %d %s", code, errs)
	}
	b, _ := os.ReadFile(cluster)
	if !strings.Contains(string(b), "ml-engineers") || !strings.Contains(string(b), model.LabelLayer3) {
		t.Fatalf("cluster file:\n%s", b)
	}

	// A job still running from before a short window is carried in at its start.
	mustCLI(t, "start-job", "--job-name", "long", "-n", "product", "--node-count", "1", "--command", "sleep 4", "--instance-type", "ml.p5.48xlarge")
	waitJob(t, "long", "Running")
	time.Sleep(1500 * time.Millisecond)
	out = mustCLI(t, "sim", "export", "--since", "1s", "--trace", trace, "--cluster", cluster)
	if !strings.Contains(out, "wrote 1 jobs") || !strings.Contains(out, "1 of them were submitted before the window and ran within it") {
		t.Fatalf("export of a short window:\n%s", out)
	}
	if jobs, err = sim.ReadTrace(trace); err != nil || len(jobs) != 1 || jobs[0].Name != "long" || jobs[0].SubmitS != 0 {
		t.Fatalf("short window's trace: %v %+v", err, jobs)
	}

	member := strings.TrimSpace(mustCLI(t, "token", "create", "--role", "member", "--team", "product"))
	_, errs, code := cli(t, "--token", member, "sim", "export", "--trace", trace, "--cluster", cluster)
	if code == 0 || !strings.Contains(errs, "ask an admin") {
		t.Fatalf("a member exported the cluster: %d %s", code, errs)
	}
}

// TestTraceFromRecords: the duration rules, the window, submit times from the
// first job, and what is left out.
func TestTraceFromRecords(t *testing.T) {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return from.Add(time.Duration(s * float64(time.Second))) }
	task := func(name string, submit float64, spec model.TaskSpec, ckpt bool) apitypes.Task {
		spec.Name, spec.Team, spec.InstanceType = name, "a", "ml.p5.48xlarge"
		r := model.TaskRecord{Name: name, Team: "a", Spec: spec, SubmittedAt: at(submit)}
		if ckpt {
			r.CheckpointAt = at(submit + 1)
		}
		return apitypes.Task{TaskRecord: r}
	}
	tasks := []apitypes.Task{
		task("resumed", 10, model.TaskSpec{Nodes: 2, RequiredTopology: model.LabelLayer2}, true),
		task("restarted", 5, model.TaskSpec{PerNode: model.Request{GPUs: 2}, PreferredTopology: model.LabelLayer3}, false),
		task("old", -5, model.TaskSpec{}, false),
		task("ancient", -100, model.TaskSpec{}, false), // before the window and not running in it
		task("queued", 20, model.TaskSpec{}, false),
		task("cpu", 30, model.TaskSpec{PerNode: model.Request{VCPU: 4}}, false),
		task("memory", 31, model.TaskSpec{PerNode: model.Request{MemoryGiB: 8}}, false),
	}
	win := func(name string, a, b float64) usage.DetailRow {
		return usage.DetailRow{Task: name, Start: at(a), End: at(b)}
	}
	windows := []usage.DetailRow{win("resumed", 40, 70), win("resumed", 11, 31), win("restarted", 6, 16), win("restarted", 20, 27.5),
		win("old", 0, 3), win("cpu", 30, 31), win("memory", 31, 32)}
	recs, runs := simRecords(tasks, windows)
	jobs, left, carried := sim.TraceFromRecords(recs, runs, from, 60)
	want := []sim.Job{
		{SubmitS: 0, Name: "old", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 1, DurationS: 3},
		{SubmitS: 5, Name: "restarted", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 1, GPUsPerNode: 2, DurationS: 7.5, Topology: "preferred:" + model.LabelLayer3},
		{SubmitS: 10, Name: "resumed", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 2, DurationS: 50, CheckpointIntervalS: 60, Topology: "required:" + model.LabelLayer2},
		{SubmitS: 30, Name: "cpu", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 1, DurationS: 1, VCPUPerNode: 4},
	}
	if len(jobs) != len(want) {
		t.Fatalf("jobs %+v", jobs)
	}
	for k := range want {
		if jobs[k] != want[k] {
			t.Fatalf("job %d: %+v, want %+v", k, jobs[k], want[k])
		}
	}
	if left["never ran (no duration to replay)"] != 1 || left["requests memory only (the trace has no memory column)"] != 1 || len(left) != 2 {
		t.Fatalf("left out %v", left)
	}
	if carried != 1 {
		t.Fatalf("%d tasks carried in from before the window; want 1 (old)", carried)
	}
	if err := sim.WriteTrace(filepath.Join(t.TempDir(), "t.csv"), jobs); err == nil || !strings.Contains(err.Error(), ".jsonl") {
		t.Fatalf("a CPU-only job in a CSV trace: %v", err)
	}
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := sim.WriteTrace(p, jobs); err != nil {
		t.Fatal(err)
	}
	back, err := sim.ReadTrace(p)
	if err != nil || len(back) != 4 || back[3] != want[3] {
		t.Fatalf("JSONL round trip: %v %+v", err, back)
	}
}
