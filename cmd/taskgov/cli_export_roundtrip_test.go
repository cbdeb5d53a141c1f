package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// knobbedServer starts a server whose teams and policy set the fields
// HyperPod has no field for, through the CLI's own flags.
func knobbedServer(t *testing.T) (dir string) {
	dir = cliServer(t)
	mustCLI(t, "team", "update", "product", "--lending-limit", "ml.p5.48xlarge:gpus=8")
	mustCLI(t, "team", "update", "ml-engineers", "--reclaim-within-group", "LowerPriority", "--borrow-within-group", "LowerPriority:50")
	mustCLI(t, "team", "create", "vision", "--quota", "ml.p5.48xlarge:gpus=0", "--group", "cv", "--reclaim-within-group", "Never",
		"--borrow-within-group", "LowerPriority", "--queueing-strategy", "StrictFIFO")
	mustCLI(t, "policy", "set", "--starvation-bound", "45m", "--fair-share-preemption", bothStrategies)
	return dir
}

// liveConfig is the server's teams and policy as JSON.
func liveConfig(t *testing.T) string {
	return mustCLI(t, "team", "list", "-o", "json") + mustCLI(t, "policy", "get", "-o", "json")
}

// TestExportTaskgovRoundTrip: `export --format taskgov` writes every team
// and policy field (reclaimWithinGroup, borrowWithinGroup, lending limits,
// groups, the starvation bound, queueingStrategy), so apply -f of it, after the server was
// changed, gives back identical teams and policy, and a second apply
// changes nothing. Before, no export carried reclaimWithinGroup (nor said
// so) and there was no taskgov format.
func TestExportTaskgovRoundTrip(t *testing.T) {
	dir := knobbedServer(t)
	want := liveConfig(t)
	file := filepath.Join(dir, "export.yaml")
	if out := mustCLI(t, "export", "--format", "taskgov", "--out", file); !strings.Contains(out, "wrote 3 teams and the policy to") {
		t.Fatalf("export: %s", out)
	}
	b, _ := os.ReadFile(file)
	for _, s := range []string{"reclaimWithinGroup: LowerPriority", "reclaimWithinGroup: Never", "maxPriorityWeight: 50", "lendingLimit:", "group: cv", "starvationBoundSeconds: 2700", "queueingStrategy: StrictFIFO",
		"fairSharePreemption:\n        - LessThanOrEqualToFinalShare\n        - LessThanInitialShare"} {
		if !strings.Contains(string(b), s) {
			t.Fatalf("the export lacks %q:\n%s", s, b)
		}
	}
	mustCLI(t, "team", "update", "product", "--lending-limit", "ml.p5.48xlarge=none")
	mustCLI(t, "team", "update", "ml-engineers", "--reclaim-within-group", "Any", "--borrow-within-group", "Never")
	mustCLI(t, "team", "update", "vision", "--group", "default", "--borrow-within-group", "LowerPriority:10", "--queueing-strategy", "BestEffortFIFO")
	mustCLI(t, "policy", "set", "--starvation-bound", "1h", "--fair-share-preemption", "default")
	if liveConfig(t) == want {
		t.Fatal("the changes changed nothing")
	}
	mustCLI(t, "apply", "-f", file)
	if got := liveConfig(t); got != want {
		t.Fatalf("export then apply is not identical:\nwant %s\ngot  %s", want, got)
	}
	if out := mustCLI(t, "apply", "-f", file); strings.Contains(out, "configured") || strings.Contains(out, "created") {
		t.Fatalf("a second apply changed something:\n%s", out)
	}
	// The same to stdout; a file that cannot be written is refused.
	if out := mustCLI(t, "export", "--format", "taskgov"); !strings.Contains(out, "reclaimWithinGroup: Never") {
		t.Fatalf("export to stdout:\n%s", out)
	}
	if _, errs, code := cli(t, "export", "--format", "taskgov", "--out", filepath.Join(dir, "missing", "x.yaml")); code != exitInput ||
		!strings.Contains(errs, "--out: cannot be written") {
		t.Fatalf("export into a missing directory: exit %d:\n%s", code, errs)
	}
}

// TestExportHyperPodNamesWhatItDrops: the HyperPod export names every
// setting its documents cannot carry (reclaimWithinGroup and the policy's
// starvation bound were dropped silently; queueingStrategy StrictFIFO),
// and applying the documents back to the same server keeps them:
// identical teams and policy (the lending limit was dropped by the import
// before).
func TestExportHyperPodNamesWhatItDrops(t *testing.T) {
	dir := knobbedServer(t)
	mustCLI(t, "team", "update", "vision", "--preempt-team-tasks", "LowerOrNewerEqualPriority")
	want := liveConfig(t)
	out := filepath.Join(dir, "hp")
	_, errs, code := cli(t, "export", "--format", "hyperpod", "--out", out)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	for _, s := range []string{
		"not exported: team ml-engineers: reclaimWithinGroup LowerPriority has no HyperPod field",
		"not exported: team vision: reclaimWithinGroup Never has no HyperPod field",
		"not exported: team ml-engineers: borrowWithinGroup has no HyperPod field",
		"not exported: team product: lendingLimit of ml.p5.48xlarge has no HyperPod field",
		"not exported: team vision: lending group cv has no HyperPod field",
		"not exported: policy starvationBoundSeconds 2700 has no HyperPod field",
		"not exported: policy fairSharePreemption [LessThanOrEqualToFinalShare LessThanInitialShare] has no HyperPod field",
		"not exported: team vision: queueingStrategy StrictFIFO has no HyperPod field",
		"`taskgov export --format taskgov` writes every field",
	} {
		if !strings.Contains(errs, s) {
			t.Errorf("export's notes lack %q:\n%s", s, errs)
		}
	}
	if n := strings.Count(errs, "LowerOrNewerEqualPriority"); n != 1 {
		t.Errorf("export names vision's preemptTeamTasks LowerOrNewerEqualPriority %d times, want once:\n%s", n, errs)
	}
	if strings.Contains(errs, "team product: reclaimWithinGroup") || strings.Contains(errs, "namespace") {
		t.Errorf("export notes a field it carries or that is as HyperPod has it:\n%s", errs)
	}
	mustCLI(t, "apply", "-f", out)
	if got := liveConfig(t); got != want {
		t.Fatalf("HyperPod export then apply changed the server:\nwant %s\ngot  %s", want, got)
	}
}

// TestTeamWithinGroupFlags: --borrow-within-group and
// --reclaim-within-group set the team fields a team file sets, describe
// shows them, Never removes borrowWithinGroup, and bad values are refused
// naming the flag or field, leaving the team as it was.
func TestTeamWithinGroupFlags(t *testing.T) {
	cliServer(t)
	mustCLI(t, "team", "update", "ml-engineers", "--borrow-within-group", "LowerPriority:50", "--reclaim-within-group", "LowerPriority")
	out := mustCLI(t, "team", "describe", "ml-engineers")
	if !strings.Contains(out, "Borrow in group:     LowerPriority (lower classes of weight <= 50)") ||
		!strings.Contains(out, "Reclaim in group:    LowerPriority") {
		t.Fatalf("describe:\n%s", out)
	}
	before := mustCLI(t, "team", "list", "-o", "json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--borrow-within-group", "Sometimes"}, `--borrow-within-group: "Sometimes" is not a policy; use LowerPriority, LowerPriority:MAX_WEIGHT`},
		{[]string{"--borrow-within-group", "LowerPriority:101"}, `gives the weight "101", not a whole number from 0 to 100`},
		{[]string{"--borrow-within-group", "LowerPriority:"}, `gives the weight "", not a whole number from 0 to 100`},
		{[]string{"--borrow-within-group", "Never:3"}, `gives a weight to Never`},
		{[]string{"--reclaim-within-group", "Maybe"}, `reclaimWithinGroup: unknown value "Maybe"; use Any, LowerPriority or Never`},
		{[]string{"--lending", "Lend"}, "borrowWithinGroup: is set, but the team's lending is Lend: it never borrows"},
	} {
		_, errs, code := cli(t, append([]string{"team", "update", "ml-engineers"}, c.args...)...)
		if code != exitInput || !strings.Contains(errs, c.want) {
			t.Errorf("team update %v: exit %d, want %q in:\n%s", c.args, code, c.want, errs)
		}
	}
	if after := mustCLI(t, "team", "list", "-o", "json"); after != before {
		t.Fatalf("a refused update changed the team:\n%s", after)
	}
	mustCLI(t, "team", "update", "ml-engineers", "--borrow-within-group", "Never")
	out = mustCLI(t, "team", "describe", "ml-engineers", "-o", "json")
	if strings.Contains(out, "borrowWithinGroup") {
		t.Fatalf("Never should remove borrowWithinGroup:\n%s", out)
	}
}
