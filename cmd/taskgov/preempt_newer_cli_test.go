package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewerEqualPriorityInTheCLI: `team update --preempt-team-tasks
// LowerOrNewerEqualPriority` is stored through the real server and shown by
// `team describe`; an unknown value is refused with the field and the values
// to use and leaves the team as it was; export writes HyperPod's nearest
// value (LowerPriority) and names the difference; and a server restarted on
// the same data directory, without a cluster file, reads the setting back
// from its database.
func TestNewerEqualPriorityInTheCLI(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(cliCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := startServerOn(t, dir, cfg, "")
	mustCLI(t, "team", "update", "ml-engineers", "--preempt-team-tasks", "LowerOrNewerEqualPriority")
	describe := func() string {
		return mustCLI(t, "team", "describe", "ml-engineers")
	}
	if out := describe(); !strings.Contains(out, "LowerOrNewerEqualPriority") {
		t.Fatalf("describe lacks the setting:\n%s", out)
	}
	_, errs, code := cli(t, "team", "update", "ml-engineers", "--preempt-team-tasks", "NewerEqual")
	if code != exitInput || !strings.Contains(errs, "preemptTeamTasks") ||
		!strings.Contains(errs, "use LowerPriority, LowerOrNewerEqualPriority or Never") {
		t.Fatalf("an unknown value: exit %d:\n%s", code, errs)
	}
	if out := describe(); !strings.Contains(out, "LowerOrNewerEqualPriority") {
		t.Fatalf("a refused update changed the team:\n%s", out)
	}
	out, errs, code := cli(t, "export", "--format", "hyperpod")
	if code != 0 || !strings.Contains(errs, "not exported: team ml-engineers: preemptTeamTasks LowerOrNewerEqualPriority has no HyperPod value: written as LowerPriority") {
		t.Fatalf("export: exit %d:\n%s", code, errs)
	}
	var docs []map[string]any
	if err := json.Unmarshal([]byte(out), &docs); err != nil {
		t.Fatalf("export's output: %v\n%s", err, out)
	}
	found := false
	for _, d := range docs {
		if cfg, ok := d["ComputeQuotaConfig"].(map[string]any); ok && strings.HasPrefix(d["Name"].(string), "ml-engineers") {
			found = true
			if cfg["PreemptTeamTasks"] != "LowerPriority" {
				t.Fatalf("exported PreemptTeamTasks %v, want LowerPriority", cfg["PreemptTeamTasks"])
			}
		}
	}
	if !found {
		t.Fatalf("export has no quota of ml-engineers:\n%s", out)
	}

	stop()
	startServerOn(t, dir, "", "") // a restart: the stored configuration
	if out := describe(); !strings.Contains(out, "LowerOrNewerEqualPriority") {
		t.Fatalf("after a restart the setting is gone:\n%s", out)
	}
	if out := mustCLI(t, "team", "describe", "product"); !strings.Contains(out, "LowerPriority") || strings.Contains(out, "LowerOrNewerEqualPriority") {
		t.Fatalf("after a restart another team's setting changed:\n%s", out)
	}
}
