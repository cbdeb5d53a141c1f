package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/usage"
)

// TestUsageReportAddsUp runs a job that borrows one node beyond its team's
// quota on a real server and checks the report: the summary equals the
// detailed windows, GPU-hours are GPUs × window, borrowed GPU-hours are the
// borrowed node's share, and a member sees only their team.
func TestUsageReportAddsUp(t *testing.T) {
	cliServer(t)
	// ml-engineers has 2 p5 nodes of quota; 3 nodes borrow one from product (Lend).
	mustCLI(t, "start-job", "--job-name", "wide", "-n", "ml-engineers", "--node-count", "3", "--command", "sleep 0.3", "--instance-type", "ml.p5.48xlarge")
	waitJob(t, "wide", "Succeeded")
	from, to := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339), time.Now().UTC().Add(time.Hour).Format(time.RFC3339)
	var det, sum usage.Report
	if err := json.Unmarshal([]byte(mustCLI(t, "usage", "report", "--from", from, "--to", to, "--type", "detailed", "--format", "json")), &det); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "usage", "report", "--from", from, "--to", to, "--format", "json")), &sum); err != nil {
		t.Fatal(err)
	}
	if len(det.Detailed) != 1 {
		t.Fatalf("detailed rows %+v", det.Detailed)
	}
	d := det.Detailed[0]
	hours := d.End.Sub(d.Start).Hours()
	if d.Status != "succeeded" || math.Abs(d.GPUHours-24*hours) > 1e-12 || math.Abs(d.BorrowedGPUHours-8*hours) > 1e-12 || hours <= 0 {
		t.Fatalf("detailed row %+v (%.6f h)", d, hours)
	}
	total, borrowed := 0.0, 0.0
	for _, r := range sum.Summary {
		total += r.GPUHours
		borrowed += r.BorrowedGPUHours
	}
	if math.Abs(total-d.GPUHours) > 1e-12 || math.Abs(borrowed-d.BorrowedGPUHours) > 1e-12 {
		t.Fatalf("summary %v/%v GPU-h, detailed %v/%v", total, borrowed, d.GPUHours, d.BorrowedGPUHours)
	}
	if sum.Header.Cluster != "taskgov" || sum.Header.Type != "summary" || sum.Header.MissingPeriods == nil {
		t.Fatalf("header %+v", sum.Header)
	}
	csv := mustCLI(t, "usage", "report", "--from", from, "--to", to, "--format", "csv")
	if !strings.HasPrefix(csv, "# cluster,taskgov,type,summary") || !strings.Contains(csv, "date,team,instance_type,gpu_hours") {
		t.Fatalf("csv:\n%s", csv)
	}
	// A careless --format is refused, not printed as a table with exit 0.
	if out, errs, code := cli(t, "usage", "report", "--from", from, "--to", to, "--format", "xml"); code != 2 ||
		out != "" || !strings.Contains(errs, `--format: unknown format "xml"`) {
		t.Fatalf("--format xml: exit %d\n%s%s", code, out, errs)
	}
	member := strings.TrimSpace(mustCLI(t, "token", "create", "--role", "member", "--team", "product"))
	out, _, code := cli(t, "--token", member, "usage", "report", "--from", from, "--to", to, "--type", "detailed", "--format", "json")
	if code != 0 || strings.Contains(out, `"team": "ml-engineers"`) {
		t.Fatalf("a product member sees ml-engineers' usage: %d\n%s", code, out)
	}
	// --team: an admin's selects; a member naming another team is refused.
	if out := mustCLI(t, "usage", "report", "--from", from, "--to", to, "--type", "detailed", "--format", "json", "--team", "ml-engineers"); !strings.Contains(out, `"team": "ml-engineers"`) {
		t.Fatalf("--team ml-engineers:\n%s", out)
	}
	if out := mustCLI(t, "usage", "report", "--from", from, "--to", to, "--type", "detailed", "--format", "json", "--team", "product"); strings.Contains(out, `"team": "ml-engineers"`) {
		t.Fatalf("--team product shows ml-engineers:\n%s", out)
	}
	if out, errs, code := cli(t, "--token", member, "usage", "report", "--from", from, "--to", to, "--team", "ml-engineers"); code == 0 || !strings.Contains(errs, "may not") {
		t.Fatalf("a product member asking for ml-engineers: exit %d\n%s%s", code, out, errs)
	}
}
