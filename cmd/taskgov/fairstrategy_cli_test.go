package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/postgres/pgtest"
)

const bothStrategies = "LessThanOrEqualToFinalShare,LessThanInitialShare"

// TestFairSharePreemptionFlag: policy set --fair-share-preemption sets the
// list (get shows it, the change is named), a list not allowed is refused
// with the field and the lists to use and changes nothing, and "default"
// removes the setting.
func TestFairSharePreemptionFlag(t *testing.T) {
	cliServer(t)
	if out := mustCLI(t, "policy", "get"); !strings.Contains(out, "Fair-share preemption:       LessThanOrEqualToFinalShare (default)") {
		t.Fatalf("get before:\n%s", out)
	}
	out := mustCLI(t, "policy", "set", "--fair-share-preemption", bothStrategies)
	if !strings.Contains(out, "fairSharePreemption: [LessThanOrEqualToFinalShare] -> [LessThanOrEqualToFinalShare LessThanInitialShare]") {
		t.Fatalf("set:\n%s", out)
	}
	if out := mustCLI(t, "policy", "get"); !strings.Contains(out, "Fair-share preemption:       LessThanOrEqualToFinalShare, LessThanInitialShare\n") {
		t.Fatalf("get after:\n%s", out)
	}
	before := mustCLI(t, "policy", "get", "-o", "json")
	if !strings.Contains(before, `"fairSharePreemption": [`) {
		t.Fatalf("json:\n%s", before)
	}
	_, errs, code := cli(t, "policy", "set", "--fair-share-preemption", "LessThanInitialShare,LessThanOrEqualToFinalShare")
	want := `policy.fairSharePreemption: ["LessThanInitialShare", "LessThanOrEqualToFinalShare"] is not a list of strategies allowed; use [LessThanOrEqualToFinalShare], [LessThanInitialShare] or [LessThanOrEqualToFinalShare, LessThanInitialShare]`
	if code == 0 || !strings.Contains(errs, want) {
		t.Fatalf("the other order: exit %d: %s", code, errs)
	}
	if after := mustCLI(t, "policy", "get", "-o", "json"); after != before {
		t.Fatalf("a refused list changed the policy:\n%s\n%s", before, after)
	}
	if out := mustCLI(t, "policy", "set", "--fair-share-preemption", "LessThanOrEqualToFinalShare"); !strings.Contains(out, "fairSharePreemption: [LessThanOrEqualToFinalShare LessThanInitialShare] -> [LessThanOrEqualToFinalShare]\n") {
		t.Fatalf("set to the first alone:\n%s", out)
	}
	if out := mustCLI(t, "policy", "set", "--fair-share-preemption", "default"); !strings.Contains(out, "policy unchanged") {
		t.Fatalf("default after the same list written out should change nothing:\n%s", out)
	}
	mustCLI(t, "policy", "set", "--fair-share-preemption", bothStrategies)
	mustCLI(t, "policy", "set", "--fair-share-preemption", "default")
	if out := mustCLI(t, "policy", "get", "-o", "json"); strings.Contains(out, "fairSharePreemption") {
		t.Fatalf("default kept the setting:\n%s", out)
	}
}

// fairSharePreemptionSurvivesRestart: the list set through the API is read
// back identical after a restart from the stored configuration (no
// --config).
func fairSharePreemptionSurvivesRestart(t *testing.T, store string) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(cliCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := startServerOn(t, dir, cfg, store)
	mustCLI(t, "policy", "set", "--fair-share-preemption", bothStrategies)
	before := mustCLI(t, "policy", "get", "-o", "json")
	if !strings.Contains(before, `"LessThanInitialShare"`) {
		t.Fatalf("before the restart:\n%s", before)
	}
	stop()
	startServerOn(t, dir, "", store)
	if after := mustCLI(t, "policy", "get", "-o", "json"); after != before {
		t.Fatalf("the restart changed the policy:\nbefore %s\nafter %s", before, after)
	}
}

// TestFairSharePreemptionSurvivesRestartSQLite: on SQLite.
func TestFairSharePreemptionSurvivesRestartSQLite(t *testing.T) {
	fairSharePreemptionSurvivesRestart(t, "")
}

// TestFairSharePreemptionSurvivesRestartPostgres: on the repository's
// throwaway PostgreSQL (skips, saying how to get it, where it is not
// installed).
func TestFairSharePreemptionSurvivesRestartPostgres(t *testing.T) {
	pg := pgtest.Start(t)
	fairSharePreemptionSurvivesRestart(t, pg.NewDatabase(t))
}
