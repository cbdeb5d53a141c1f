package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStrictFIFOInTheCLI: `team update --queueing-strategy StrictFIFO` is
// stored through the real server, shown by `team describe`, and orders the
// team's queue: a task that fits waits behind the team's first task, which
// cannot start, and `list-jobs --pending` names that task; back to
// BestEffortFIFO, it starts. An unknown value is refused with the field
// and the values to use and leaves the team as it was; a server restarted
// on the same data directory, without a cluster file, reads the setting
// back from its database.
func TestStrictFIFOInTheCLI(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(cliCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := startServerOn(t, dir, cfg, "")
	describe := func(team string) string {
		return mustCLI(t, "team", "describe", team)
	}
	if out := describe("ml-engineers"); !strings.Contains(out, "Queueing strategy:   BestEffortFIFO") {
		t.Fatalf("describe lacks the default:\n%s", out)
	}
	mustCLI(t, "team", "update", "ml-engineers", "--queueing-strategy", "StrictFIFO")
	if out := describe("ml-engineers"); !strings.Contains(out, "Queueing strategy:   StrictFIFO") {
		t.Fatalf("describe lacks the setting:\n%s", out)
	}
	_, errs, code := cli(t, "team", "update", "ml-engineers", "--queueing-strategy", "Strict")
	if code != exitInput || !strings.Contains(errs, "queueingStrategy") || !strings.Contains(errs, "use BestEffortFIFO or StrictFIFO") {
		t.Fatalf("an unknown value: exit %d:\n%s", code, errs)
	}
	if out := describe("ml-engineers"); !strings.Contains(out, "Queueing strategy:   StrictFIFO") {
		t.Fatalf("a refused update changed the team:\n%s", out)
	}

	// big (4 nodes) is past the team's borrow limit (2 nodes of quota, 50%):
	// it heads the queue and cannot start; small (1 node) fits but waits.
	mustCLI(t, "start-job", "--job-name", "big", "-n", "ml-engineers", "--priority", "training",
		"--node-count", "4", "--command", "sleep 30")
	waitJob(t, "big", "Pending")
	mustCLI(t, "start-job", "--job-name", "small", "-n", "ml-engineers", "--priority", "fine-tuning",
		"--node-count", "1", "--command", "sleep 30")
	waitJob(t, "small", "Pending")
	waitFor(t, 15*time.Second, func() bool {
		return strings.Contains(mustCLI(t, "list-jobs", "--pending"), "BehindHead")
	})
	if out := mustCLI(t, "list-jobs", "--pending"); !strings.Contains(out, "its team queues StrictFIFO, and big, ahead of it, cannot start yet") {
		t.Fatalf("small's reason does not name big:\n%s", out)
	}

	stop()
	startServerOn(t, dir, "", "") // a restart: the stored configuration
	if out := describe("ml-engineers"); !strings.Contains(out, "Queueing strategy:   StrictFIFO") {
		t.Fatalf("after a restart the setting is gone:\n%s", out)
	}
	if out := describe("product"); !strings.Contains(out, "Queueing strategy:   BestEffortFIFO") {
		t.Fatalf("after a restart another team's setting changed:\n%s", out)
	}
	waitFor(t, 15*time.Second, func() bool {
		return strings.Contains(mustCLI(t, "list-jobs", "--pending"), "BehindHead")
	})
	mustCLI(t, "team", "update", "ml-engineers", "--queueing-strategy", "BestEffortFIFO")
	waitJob(t, "small", "Running")
	if out := describe("ml-engineers"); !strings.Contains(out, "Queueing strategy:   BestEffortFIFO") {
		t.Fatalf("describe after going back:\n%s", out)
	}
}
