package main

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
)

// TestDashboardIdleWhileWaiting answers an admin's "why are GPUs idle while
// tasks wait" on the Cluster page, in headless Chromium against a real
// server: product runs its quota (2 of 4 nodes), ml-engineers asks for 3
// nodes, which would borrow, and nothing is lent. The page shows, for
// ml.p5.48xlarge, the API's idle GPUs (16), one task waiting, asking 24,
// why (NoIdleCompute, of ml-engineers), and that the smallest waiting task
// does not fit in what is idle.
func TestDashboardIdleWhileWaiting(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser")
	}
	cliServer(t)
	for _, j := range []string{"serve-a", "serve-b"} {
		mustCLI(t, "start-job", "--job-name", j, "-n", "product", "--priority", "inference", "--command", "sleep 3600", "--instance-type", "ml.p5.48xlarge")
		waitJob(t, j, "Running")
	}
	mustCLI(t, "start-job", "--job-name", "big-train", "-n", "ml-engineers", "--node-count", "3", "--priority", "training",
		"--command", "sleep 3600", "--instance-type", "ml.p5.48xlarge")
	b := newBrowser(t, os.Getenv("TASKGOV_SERVER"), 60*time.Second)
	cl, _ := apiClient()
	b.login(os.Getenv("TASKGOV_TOKEN"))
	var nodes struct{ Nodes []apitypes.Node }
	if err := cl.Do(b.ctx, "GET", "/api/v1/nodes", nil, &nodes); err != nil {
		t.Fatal(err)
	}
	idle := 0
	for _, n := range nodes.Nodes {
		if n.Schedulable {
			idle += int(n.FreeGPUs)
		}
	}
	if idle != 16 {
		t.Fatalf("the API shows %d idle GPUs, want 16 (2 of 4 nodes run product's tasks)", idle)
	}
	row := `#waiting-table tr[data-type="ml.p5.48xlarge"]`
	b.until("the waiting task counted", fmt.Sprintf(`document.querySelector('%s td.waiting')?.textContent === '1'`, row), 15*time.Second)
	if got := b.text(row + " td.idle"); got != "16" {
		t.Errorf("idle GPUs shown %s, API %d", got, idle)
	}
	if got := b.text(row + " td.smallest"); got != "24" {
		t.Errorf("smallest waiting task asks %s GPUs, want 24 (3 whole nodes)", got)
	}
	if !eval[bool](b, exists(row+` li[data-reason="NoIdleCompute"][data-team="ml-engineers"]`)) {
		t.Errorf("the reason is not shown: %q", b.text(row))
	}
	if got := b.text(row + " .verdict"); got != "The smallest waiting task asks 24 GPUs; only 16 are idle." {
		t.Errorf("verdict %q", got)
	}
	b.a11y("admin-cluster-waiting")
	b.shots("admin-cluster-waiting")
	// Once it runs, nothing waits, and the card says so.
	mustCLI(t, "cancel-job", "--job-name", "serve-b")
	b.until("nothing waits", fmt.Sprintf(`document.querySelector('%s td.waiting')?.textContent === '0' && document.querySelector('%s .verdict').textContent.includes('othing of this type waits')`, row, row), 20*time.Second)
}
