package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taskgov/taskgov/internal/apitypes"
)

// artifactsDir is where the browser test leaves its screenshots.
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("TASKGOV_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "taskgov-ui-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDashboardInChromium drives the dashboard in a real headless Chromium
// against a running server: log in, load every page, compare the numbers
// shown with the API's, watch a preemption made through the CLI appear on
// the Tasks page, and check that a member cannot see another team's tasks.
func TestDashboardInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser")
	}
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("Chromium is not installed; scripts/install-test-deps.sh installs it (CI runs it)")
	}
	dir := cliServer(t)
	base := os.Getenv("TASKGOV_SERVER")
	admin := os.Getenv("TASKGOV_TOKEN")
	member := strings.TrimSpace(mustCLI(t, "token", "create", "--role", "member", "--team", "product"))
	// ml-engineers (quota 2 nodes) runs a 3-node job, borrowing one of product's.
	mustCLI(t, "start-job", "--job-name", "big-train", "-n", "ml-engineers", "--node-count", "3", "--priority", "fine-tuning",
		"--command", "sleep 60", "--instance-type", "ml.p5.48xlarge")
	waitJob(t, "big-train", "Running")

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.UserDataDir(filepath.Join(dir, "chromium")), chromedp.WindowSize(1280, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancelC := chromedp.NewContext(actx)
	defer cancelC()
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()
	shots := artifactsDir(t)
	shot := func(name string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			var buf []byte
			if err := chromedp.FullScreenshot(&buf, 100).Do(ctx); err != nil { // quality 100: PNG
				return err
			}
			path := filepath.Join(shots, name+".png")
			t.Logf("screenshot: %s", path)
			return os.WriteFile(path, buf, 0o644)
		})
	}
	login := func(token string) chromedp.Tasks {
		return chromedp.Tasks{
			chromedp.Navigate(base + "/ui/"),
			chromedp.ActionFunc(func(ctx context.Context) error { return chromedp.Evaluate(`sessionStorage.clear()`, nil).Do(ctx) }),
			chromedp.Navigate(base + "/ui/#cluster"),
			chromedp.WaitVisible("#token", chromedp.ByID),
			chromedp.SendKeys("#token", token, chromedp.ByID),
			chromedp.Click("#login button", chromedp.ByQuery),
			chromedp.WaitVisible("#kpi-gpus-total", chromedp.ByID),
		}
	}
	text := func(sel string) string {
		var s string
		if err := chromedp.Run(ctx, chromedp.WaitVisible(sel, chromedp.ByQuery), chromedp.Text(sel, &s, chromedp.ByQuery)); err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}
	waitText := func(sel, want string) {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			var s string
			_ = chromedp.Run(ctx, chromedp.Text(sel, &s, chromedp.ByQuery))
			if strings.TrimSpace(s) == want {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("%s never showed %q", sel, want)
	}

	// 1-2: log in as admin; the cluster page matches the API.
	if err := chromedp.Run(ctx, login(admin), shot("cluster")); err != nil {
		t.Fatal(err)
	}
	var nodes struct{ Nodes []apitypes.Node }
	cl, _ := apiClient()
	if err := cl.Do(ctx, "GET", "/api/v1/nodes", nil, &nodes); err != nil {
		t.Fatal(err)
	}
	total, used := 0, 0
	for _, n := range nodes.Nodes {
		if n.Schedulable {
			total += int(n.GPUs)
			used += int(n.GPUs - n.FreeGPUs)
		}
	}
	if got := text("#kpi-gpus-total"); got != strconv.Itoa(total) {
		t.Errorf("GPUs shown %s, API %d", got, total)
	}
	if got := text("#kpi-gpus-allocated"); got != strconv.Itoa(used) {
		t.Errorf("allocated shown %s, API %d", got, used)
	}
	if !strings.Contains(text("#topology"), "layer-3") || !strings.Contains(text("#nodes-table"), "p5-0") {
		t.Error("topology or nodes missing on the cluster page")
	}
	// Device utilisation: measured where nvidia-smi runs, otherwise the page
	// says it is unavailable.
	var dev struct{ Available bool }
	if err := cl.Do(ctx, "GET", "/api/v1/devices", nil, &dev); err != nil {
		t.Fatal(err)
	}
	if dev.Available {
		if err := chromedp.Run(ctx, chromedp.WaitVisible("#devices svg.chart", chromedp.ByQuery)); err != nil {
			t.Fatalf("device chart: %v", err)
		}
	} else if got := text("#devices-unavailable"); !strings.Contains(got, "unavailable") || !strings.Contains(got, "nvidia-smi") {
		t.Errorf("device card says %q, want that utilisation is unavailable and why", got)
	}
	// The utilisation trend draws once samples exist (sampled every 100 ms here).
	if err := chromedp.Run(ctx, chromedp.WaitVisible("svg.trend polyline", chromedp.ByQuery), shot("cluster-trend")); err != nil {
		t.Fatalf("trend chart: %v", err)
	}
	// The teams page: the chart renders and usage matches the API.
	var usage struct{ Usage []apitypes.Usage }
	_ = cl.Do(ctx, "GET", "/api/v1/usage", nil, &usage)
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/ui/#teams"), chromedp.WaitVisible("#teams-table", chromedp.ByID),
		chromedp.WaitVisible("svg.chart rect", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	for _, u := range usage.Usage {
		if got := text(fmt.Sprintf(`tr[data-team=%q] td.used`, u.Team)); got != strconv.FormatInt(u.UsedGPUs, 10) {
			t.Errorf("team %s used shown %s, API %d", u.Team, got, u.UsedGPUs)
		}
	}
	// Filtering by team leaves only that team's rows; without nvidia-smi the
	// page says measured utilisation is unavailable.
	if !dev.Available && !strings.Contains(text("#teams-devices-unavailable"), "unavailable") {
		t.Error("the teams page does not say device utilisation is unavailable")
	}
	choose := func(id, value string) chromedp.Action {
		return chromedp.Evaluate(fmt.Sprintf(`{const e = document.getElementById(%q); e.value = %q; e.dispatchEvent(new Event('change'));}`, id, value), nil)
	}
	count := func(js string) int {
		var n int
		if err := chromedp.Run(ctx, chromedp.Evaluate(js, &n)); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := chromedp.Run(ctx, choose("f-uteam", "product")); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); count(`document.querySelectorAll('#teams-table tr[data-team]:not([data-team="product"])').length`) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the team filter left other teams' rows")
		}
	}
	if count(`document.querySelectorAll('#teams-table tr[data-team="product"]').length`) == 0 {
		t.Error("the team filter hid the chosen team too")
	}
	// The usage page's detailed view lists runs per task, as the API does.
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/ui/#usage"), chromedp.WaitVisible(`#usage-table[data-view="summary"]`, chromedp.ByQuery),
		choose("usage-view", "detailed"), chromedp.WaitVisible(`#usage-table[data-view="detailed"]`, chromedp.ByQuery), shot("usage-detailed")); err != nil {
		t.Fatal(err)
	}
	var detail struct{ Detailed []struct{ Task string } }
	from, to := time.Now().Add(-7*24*time.Hour).UTC().Format(time.RFC3339), time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	if err := cl.Do(ctx, "GET", "/api/v1/usage/report?type=detailed&from="+from+"&to="+to, nil, &detail); err != nil {
		t.Fatal(err)
	}
	if len(detail.Detailed) == 0 || !strings.Contains(text("#usage-table"), detail.Detailed[0].Task) {
		t.Errorf("detailed usage view lacks the API's runs %+v:\n%s", detail.Detailed, text("#usage-table"))
	}
	for _, page := range []string{"policies", "usage"} {
		if err := chromedp.Run(ctx, chromedp.Navigate(base+"/ui/#"+page)); err != nil {
			t.Fatal(err)
		}
		sel := map[string]string{"policies": "#policy-json", "usage": "#usage-table"}[page]
		if err := chromedp.Run(ctx, chromedp.WaitVisible(sel, chromedp.ByQuery)); err != nil {
			t.Fatalf("page %s: %v", page, err)
		}
	}
	// 3: a preemption made through the CLI appears on the Tasks page.
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/ui/#tasks"), chromedp.WaitVisible("#tasks-table", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitText("#count-preempted", "0")
	mustCLI(t, "start-job", "--job-name", "serve", "-n", "product", "--node-count", "2", "--priority", "inference",
		"--command", "sleep 60", "--instance-type", "ml.p5.48xlarge")
	waitText("#count-preempted", "1")
	waitText(`tr[data-task="big-train"] td.state`, "Pending")
	if err := chromedp.Run(ctx, shot("tasks-after-preemption"), chromedp.Navigate(base+"/ui/#task/big-train"),
		chromedp.WaitVisible("#events-table", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	if tl := text("#events-table"); !strings.Contains(tl, "Preempted") || !strings.Contains(tl, "Reclaim") {
		t.Errorf("the timeline lacks the preemption:\n%s", tl)
	}
	// 5: a member of product sees product's tasks only.
	if err := chromedp.Run(ctx, login(member), chromedp.Navigate(base+"/ui/#tasks"), chromedp.WaitVisible("#tasks-table", chromedp.ByID), shot("member-tasks")); err != nil {
		t.Fatal(err)
	}
	waitText(`tr[data-task="serve"] td.state`, "Running")
	if tbl := text("#tasks-table"); strings.Contains(tbl, "big-train") {
		t.Errorf("a member of product sees ml-engineers' task:\n%s", tbl)
	}
}
