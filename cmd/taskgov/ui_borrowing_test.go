package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
)

// TestDashboardWhoBorrows answers an admin's "which team is over quota,
// who is borrowing from whom" on the Teams page, in headless Chromium
// against a real server: ml-engineers (quota 2 nodes) runs a 3-node job on
// product's unused quota. Its row is marked over quota, product's is not,
// product's unused quota is called offered (it was labelled "lent" while no
// one borrowed it), and one sentence names the borrower, the GPUs (the
// API's) and whose unused quota it draws on. With nothing borrowed, the
// page says so.
func TestDashboardWhoBorrows(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser")
	}
	cliServer(t)
	mustCLI(t, "start-job", "--job-name", "big-train", "-n", "ml-engineers", "--node-count", "3", "--priority", "training",
		"--command", "sleep 3600", "--instance-type", "ml.p5.48xlarge")
	waitJob(t, "big-train", "Running")
	b := newBrowser(t, os.Getenv("TASKGOV_SERVER"), 60*time.Second)
	b.login(os.Getenv("TASKGOV_TOKEN"))
	cl, _ := apiClient()
	var usage struct{ Usage []apitypes.Usage }
	if err := cl.Do(b.ctx, "GET", "/api/v1/usage", nil, &usage); err != nil {
		t.Fatal(err)
	}
	var borrowed, offered int64
	for _, u := range usage.Usage {
		switch u.Team {
		case "ml-engineers":
			borrowed = u.BorrowedGPUs
		case "product":
			offered = u.LentGPUs
		}
	}
	if borrowed != 8 || offered != 16 {
		t.Fatalf("the API: ml-engineers borrows %d GPUs, product offers %d; want 8 and 16", borrowed, offered)
	}
	b.open("teams", "#borrowing")
	want := "ml.p5.48xlarge: ml-engineers borrows 8 GPUs, drawing on the unused quota that product offers (16 GPUs)."
	if got := b.text(`#borrowing li[data-type="ml.p5.48xlarge"]`); got != want {
		t.Errorf("borrowing: %q, want %q", got, want)
	}
	if !eval[bool](b, exists(`#teams-table tr[data-team="ml-engineers"] .over`)) || eval[bool](b, exists(`#teams-table tr[data-team="product"] .over`)) {
		t.Error("ml-engineers should be marked over quota, and product not")
	}
	if head := b.text("#teams-table thead"); strings.Contains(head, "lent") || !strings.Contains(head, "offered") {
		t.Errorf("table header %q: unused quota is offered, not lent", head)
	}
	b.a11y("admin-teams-borrowing")
	b.shots("admin-teams-borrowing")
	mustCLI(t, "cancel-job", "--job-name", "big-train")
	b.until("nothing borrowed", exists("#borrowing-none")+` && !document.querySelector('#teams-table .over')`, 20*time.Second)
}
