package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// TestDashboardInChromium drives the dashboard in a real headless Chromium
// against a running server, as an admin and as a member: every page loads
// and matches the API; a preemption made through the CLI appears on Tasks;
// a filter, the search box's focus and its text survive refreshes; the
// policy and team forms preview before they save; a task is suspended and
// resumed after confirmation; an outage shows a banner that goes away by
// itself; an unknown route says so; a member sees only its team and no
// control it cannot use. Screenshots of each page, for both roles, at 1440
// and 1024 px, are left in artifactsDir.
func TestDashboardInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser")
	}
	cliServer(t)
	base := os.Getenv("TASKGOV_SERVER")
	admin := os.Getenv("TASKGOV_TOKEN")
	member := strings.TrimSpace(mustCLI(t, "token", "create", "--role", "member", "--team", "product"))
	// ml-engineers (quota 2 nodes) runs a 3-node job, borrowing one of product's.
	// Its jobs run until the test ends (the server's shutdown stops them):
	// the steps below expect big-train still running when serve preempts
	// it, and serve still running when the member looks, which a loaded
	// machine reached more than a minute in, after a 60 s job had ended.
	mustCLI(t, "start-job", "--job-name", "big-train", "-n", "ml-engineers", "--node-count", "3", "--priority", "fine-tuning",
		"--command", "sleep 3600", "--instance-type", "ml.p5.48xlarge")
	started := time.Now()
	waitJob(t, "big-train", "Running")
	b := newBrowser(t, base, 60*time.Second)
	cl, _ := apiClient()

	// Cluster: figures match the API (capacity counts nodes that can take
	// work or still run some).
	b.login(admin)
	b.until("whoami", `document.getElementById('me-role')?.textContent === 'admin'`, 5*time.Second)
	var nodes struct{ Nodes []apitypes.Node }
	if err := cl.Do(b.ctx, "GET", "/api/v1/nodes", nil, &nodes); err != nil {
		t.Fatal(err)
	}
	total, used, vcpu := 0, 0, 0.0
	for _, n := range nodes.Nodes {
		if n.Schedulable || n.FreeGPUs < n.GPUs {
			total += int(n.GPUs)
			vcpu += n.VCPU
		}
		used += int(n.GPUs - n.FreeGPUs)
	}
	if got := b.text("#kpi-gpus-total"); got != strconv.Itoa(total) {
		t.Errorf("GPUs shown %s, API %d", got, total)
	}
	if got := b.text("#kpi-gpus-allocated"); got != strconv.Itoa(used) {
		t.Errorf("allocated shown %s, API %d", got, used)
	}
	if got := b.text("#kpi-vcpu"); !strings.HasSuffix(got, fmt.Sprintf("/ %.0f", vcpu)) {
		t.Errorf("vCPU shown %q, API total %v", got, vcpu)
	}
	// A cordoned node that still runs a task stays in the capacity figures.
	mustCLI(t, "node", "cordon", "p5-0")
	b.until("cordoned node counted", `document.getElementById('kpi-gpus-total').textContent === '32' && !!document.getElementById('cordoned-note')`, 10*time.Second)
	mustCLI(t, "node", "uncordon", "p5-0")
	if !strings.Contains(b.text("#topology"), "layer-3") || !strings.Contains(b.text("#nodes-table"), "p5-0") {
		t.Error("topology or nodes missing on the cluster page")
	}
	var dev struct{ Available bool }
	if err := cl.Do(b.ctx, "GET", "/api/v1/devices", nil, &dev); err != nil {
		t.Fatal(err)
	}
	if !dev.Available {
		if got := b.text("#devices-unavailable"); !strings.Contains(got, "unavailable") || !strings.Contains(got, "nvidia-smi") {
			t.Errorf("device card says %q, want that utilisation is unavailable and why", got)
		}
	}
	// The trend is a uPlot chart over the whole window, with a legend that
	// marks series by line style too.
	b.until("trend chart", exists("#trend-chart .uplot canvas"), 20*time.Second)
	if lg := b.text("#trend-chart .u-legend"); !strings.Contains(lg, "ml.p5.48xlarge") {
		t.Errorf("trend legend %q", lg)
	}
	b.run(choose("trend-window", "1w"))
	b.until("a week's trend draws before the first hourly mean", exists("#trend-chart .uplot")+` && !document.getElementById('trend-empty')`, 10*time.Second)
	b.run(choose("trend-window", "1h"))
	b.a11y("admin-cluster")
	b.shots("admin-cluster")

	// Teams: GPU use matches the API; vCPU and memory are shown.
	var usage struct{ Usage []apitypes.Usage }
	_ = cl.Do(b.ctx, "GET", "/api/v1/usage", nil, &usage)
	b.open("teams", "#teams-table")
	for _, u := range usage.Usage {
		sel := fmt.Sprintf(`tr[data-team=%q][data-type=%q]`, u.Team, u.InstanceType)
		b.until("team "+u.Team+" used GPUs", fmt.Sprintf(`document.querySelector(%q)?.dataset.usedGpus === %q`, sel, strconv.FormatInt(u.UsedGPUs, 10)), 5*time.Second)
		if row := b.text(sel); !strings.Contains(row, fmt.Sprintf("%.0f / %.0f", u.UsedVCPU, u.QuotaVCPU)) {
			t.Errorf("team %s row lacks vCPU used/quota %v/%v: %q", u.Team, u.UsedVCPU, u.QuotaVCPU, row)
		}
	}
	b.run(choose("f-uteam", "product"))
	b.until("the team filter", `document.querySelectorAll('#teams-table tr[data-team]:not([data-team="product"])').length === 0 && document.querySelectorAll('#teams-table tr[data-team="product"]').length > 0`, 10*time.Second)
	b.run(choose("f-uteam", ""))
	b.until("every team back", `document.querySelectorAll('#teams-table tr[data-team="ml-engineers"]').length > 0`, 10*time.Second)
	// The team editor: create a team, preview (Save is disabled before),
	// save, then delete it after confirming.
	b.run(chromedp.Click("#team-new", chromedp.ByID), chromedp.WaitVisible("#team-form", chromedp.ByID),
		chromedp.SendKeys("#t-name", "research", chromedp.ByID),
		chromedp.SetValue("#team-form [data-q=instanceType]", "ml.p5.48xlarge", chromedp.ByQuery),
		chromedp.SendKeys("#team-form [data-q=gpus]", "0", chromedp.ByQuery))
	if !eval[bool](b, `document.getElementById('team-save').disabled`) {
		t.Error("Save is enabled before Preview")
	}
	b.run(chromedp.Click("#team-preview", chromedp.ByID), chromedp.WaitVisible("#team-preview-count", chromedp.ByID))
	b.until("save enabled after preview", `!document.getElementById('team-save').disabled`, 5*time.Second)
	b.a11y("admin-teams-editor")
	b.shots("admin-teams-editor")
	b.run(chromedp.Click("#team-save", chromedp.ByID), chromedp.WaitVisible("#team-saved", chromedp.ByID))
	b.until("the new team listed", exists(`#team-settings tr[data-key="research"]`), 5*time.Second)
	var teams struct{ Teams []model.Team }
	_ = cl.Do(b.ctx, "GET", "/api/v1/teams", nil, &teams)
	if len(teams.Teams) != 3 {
		t.Errorf("teams after create: %+v", teams.Teams)
	}
	// Saving the form keeps what it does not show: a reclaim setting and a
	// quota's lending limit set through the API survive a weight change;
	// the queueing strategy set there is the one the form shows and saves.
	if err := cl.Do(b.ctx, "PUT", "/api/v1/teams/research", map[string]any{"name": "research", "reclaimWithinGroup": "Never", "queueingStrategy": "StrictFIFO",
		"quotas": []map[string]any{{"instanceType": "ml.p5.48xlarge", "gpus": 8, "lendingLimit": map[string]any{"gpus": 8}}}}, nil); err != nil {
		t.Fatal(err)
	}
	b.until("the API's change listed", `document.querySelector('#team-settings tr[data-key="research"]')?.textContent.includes('8 GPUs')`, 10*time.Second)
	b.run(chromedp.Click("#edit-research", chromedp.ByID), chromedp.WaitVisible("#t-weight", chromedp.ByID))
	b.until("the form shows StrictFIFO", `document.getElementById('t-queueing').value === 'StrictFIFO'`, 5*time.Second)
	b.run(choose("t-weight", "3"), chromedp.Click("#team-preview", chromedp.ByID), chromedp.WaitVisible("#team-preview-count", chromedp.ByID))
	b.until("save enabled after the edit's preview", `!document.getElementById('team-save').disabled`, 5*time.Second)
	b.run(chromedp.Click("#team-save", chromedp.ByID), chromedp.WaitVisible("#team-saved", chromedp.ByID))
	var after struct{ Teams []model.Team }
	if err := cl.Do(b.ctx, "GET", "/api/v1/teams", nil, &after); err != nil {
		t.Fatal(err)
	}
	var research model.Team
	for _, tm := range after.Teams {
		if tm.Name == "research" {
			research = tm
		}
	}
	if w := research.FairShareWeight; w == nil || *w != 3 || research.ReclaimWithinGroup != "Never" || research.QueueingStrategy != model.StrictFIFO || len(research.Quotas) != 1 ||
		research.Quotas[0].LendingLimit == nil || research.Quotas[0].LendingLimit.GPUs == nil || *research.Quotas[0].LendingLimit.GPUs != 8 {
		t.Errorf("after the form saved weight 3, research is %+v (quotas %+v): want weight 3, reclaimWithinGroup Never, queueingStrategy StrictFIFO and the lending limit of 8 GPUs kept", research, research.Quotas)
	}
	b.run(chromedp.Click("#edit-research", chromedp.ByID), chromedp.WaitVisible("#team-delete", chromedp.ByID),
		chromedp.Click("#team-delete", chromedp.ByID), chromedp.Click("#team-delete-yes", chromedp.ByID), chromedp.WaitVisible("#team-deleted", chromedp.ByID))
	b.until("the team gone", `!document.querySelector('#team-settings tr[data-key="research"]')`, 5*time.Second)
	// A quota for an instance type the cluster has no nodes of lends
	// nothing: its row says "not present" where the lent GPUs would be.
	mustCLI(t, "team", "create", "gpuless", "--quota", "ml.g5.12xlarge=2")
	absent := `#teams-table tr[data-team="gpuless"][data-type="ml.g5.12xlarge"]`
	b.until("the absent type's row", exists(absent), 10*time.Second)
	if row := b.text(absent); !strings.Contains(row, "not present") {
		t.Errorf("quota for an absent type shows %q, want \"not present\" where GPUs lent would be", row)
	}
	mustCLI(t, "team", "delete", "gpuless")
	b.a11y("admin-teams")
	b.shots("admin-teams")

	// Policies: a form; Preview before Save; the saved value is the API's.
	b.open("policies", "#policy-form")
	// A refused preview says its problem and fix once; the next result
	// replaces it.
	b.run(chromedp.Click("#class-add", chromedp.ByID), chromedp.Click("#policy-preview", chromedp.ByID), chromedp.WaitVisible("#policy-error", chromedp.ByID))
	if msg := b.text("#policy-error"); strings.Count(msg, "name") == 0 || repeats(msg) {
		t.Errorf("preview error %q", msg)
	}
	b.run(chromedp.Click("#classes-table tbody tr:last-child button", chromedp.ByQuery))
	b.run(chromedp.SetValue("#p-starvationBoundSeconds", "900", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById('p-starvationBoundSeconds').dispatchEvent(new Event('input', {bubbles: true}))`, nil))
	if !eval[bool](b, `document.getElementById('policy-save').disabled`) {
		t.Error("policy Save is enabled before Preview")
	}
	b.run(chromedp.Click("#policy-preview", chromedp.ByID), chromedp.WaitVisible("#preview-count", chromedp.ByID),
		chromedp.Click("#policy-save", chromedp.ByID), chromedp.WaitVisible("#policy-saved", chromedp.ByID))
	if eval[bool](b, exists("#policy-error")) {
		t.Error("a stale preview error stays below the saved policy")
	}
	var pol model.Policy
	if err := cl.Do(b.ctx, "GET", "/api/v1/policy", nil, &pol); err != nil || pol.StarvationBoundSeconds == nil || *pol.StarvationBoundSeconds != 900 {
		t.Errorf("policy after save: %+v %v", pol, err)
	}
	b.a11y("admin-policies")
	b.shots("admin-policies")

	// Usage: the detailed view lists the API's runs; a running run has no end.
	b.open("usage", `#usage-table[data-view="summary"]`)
	b.run(choose("usage-view", "detailed"), chromedp.WaitVisible(`#usage-table[data-view="detailed"]`, chromedp.ByQuery))
	if tbl := b.text("#usage-table"); !strings.Contains(tbl, "big-train") || !strings.Contains(tbl, "running") {
		t.Errorf("detailed usage lacks big-train's running run:\n%s", tbl)
	}
	for _, w := range []int64{1440, 1024} {
		b.run(chromedp.EmulateViewport(w, 900), chromedp.Sleep(100*time.Millisecond))
		if got := eval[int64](b, `document.documentElement.scrollWidth`); got > w {
			t.Errorf("usage page is %d px wide at %d", got, w)
		}
	}
	b.run(chromedp.EmulateViewport(1440, 900))
	b.a11y("admin-usage")
	b.shots("admin-usage")

	// Tasks: a preemption made through the CLI appears.
	b.open("tasks", "#tasks-table")
	b.until("no preemption yet", `document.getElementById('count-preempted').textContent === '0'`, 10*time.Second)
	t.Logf("%.1f s after big-train started, serve is submitted to preempt it", time.Since(started).Seconds())
	mustCLI(t, "start-job", "--job-name", "serve", "-n", "product", "--node-count", "2", "--priority", "inference",
		"--command", "sleep 3600", "--instance-type", "ml.p5.48xlarge")
	serveAt := time.Now()
	b.until("one preempted", `document.getElementById('count-preempted').textContent === '1'`, 30*time.Second)
	b.until("big-train pending", `document.querySelector('tr[data-task="big-train"] td.state')?.textContent.includes('Pending')`, 30*time.Second)
	// The recent preemptions name both tasks and teams for an admin.
	b.until("the preemption listed", `(r => r && r.querySelector('.preemptor').textContent === 'serve' && r.textContent.includes('product') && r.textContent.includes('Reclaim'))(document.querySelector('#preemptions-table tr[data-preemption="big-train"]'))`, 30*time.Second)
	// A team filter with a state no task of it has: the team list keeps
	// every team, and the empty table says what matched nothing.
	b.run(choose("f-team", "ml-engineers"), choose("f-state", "Suspended"))
	b.until("empty state for a team and state", exists("#tasks-empty")+` && document.getElementById('tasks-empty').textContent.includes('ml-engineers') && document.querySelectorAll('#f-team option').length === 3`, 10*time.Second)
	b.run(choose("f-team", ""))
	// A filter, the search box's text and focus survive refreshes.
	b.run(choose("f-state", "Running"), chromedp.Focus("#f-q", chromedp.ByID), chromedp.SendKeys("#f-q", "ser", chromedp.ByID))
	b.until("filtered to serve", `document.querySelectorAll('#tasks-table tbody tr').length === 1 && !!document.querySelector('tr[data-task="serve"]')`, 10*time.Second)
	time.Sleep(2600 * time.Millisecond) // past a refresh
	if got := eval[string](b, `[document.activeElement.id, document.getElementById('f-q').value, document.getElementById('f-state').value, document.querySelectorAll('#tasks-table tbody tr').length].join('|')`); got != "f-q|ser|Running|1" {
		t.Errorf("after a refresh: focus|search|state|rows = %s, want f-q|ser|Running|1", got)
	}
	if c := b.text("#count-pending"); c != "1" {
		t.Errorf("pending count under a Running filter: %s, want 1 (counts ignore the state filter)", c)
	}
	b.run(chromedp.SendKeys("#f-q", "zzz", chromedp.ByID))
	b.until("empty state", exists("#tasks-empty"), 10*time.Second)
	b.run(chromedp.Click("#f-clear", chromedp.ByID))
	b.until("filters cleared", `document.querySelectorAll('#tasks-table tbody tr').length === 2 && document.getElementById('f-state').value === '' && document.getElementById('f-q').value === ''`, 10*time.Second)
	b.a11y("admin-tasks")
	b.shots("admin-tasks")

	// Task detail: dated timeline, the preemption, logs of every pod, and a
	// suspension after confirming it.
	b.open("task/big-train", "#events-table")
	if tl := b.text("#events-table"); !strings.Contains(tl, "Preempted") || !strings.Contains(tl, "Reclaim") || !strings.Contains(tl, strconv.Itoa(time.Now().Year())) {
		t.Errorf("the timeline lacks the preemption or dates:\n%s", tl)
	}
	if n := eval[int](b, `document.querySelectorAll('details.pod-logs').length`); n != 3 {
		t.Errorf("logs for %d pods, want 3", n)
	}
	b.run(chromedp.Click("#act-suspend", chromedp.ByID), chromedp.WaitVisible("#confirm", chromedp.ByID))
	b.shots("admin-task-confirm")
	b.run(chromedp.Click("#confirm-yes", chromedp.ByID))
	b.until("suspended", `document.getElementById('task-state')?.dataset.state === 'Suspended'`, 10*time.Second)
	if msg := b.text("#task-message"); strings.Contains(msg, "tok-") && !strings.Contains(msg, "admin") {
		t.Errorf("message names a token id, not its name: %q", msg)
	}
	b.run(chromedp.Click("#act-resume", chromedp.ByID), chromedp.Click("#confirm-yes", chromedp.ByID))
	b.until("resumed", `document.getElementById('task-state')?.dataset.state === 'Pending'`, 10*time.Second)
	b.a11y("admin-task")
	b.shots("admin-task")

	// An outage shows a banner, keeps the page, and recovers by itself.
	b.run(network.Enable(), network.EmulateNetworkConditions(true, 0, -1, -1))
	b.until("outage banner", `!document.getElementById('banner').hidden && document.getElementById('banner').textContent.includes('cannot be reached')`, 10*time.Second)
	if !eval[bool](b, exists("#events-table")) {
		t.Error("the outage replaced the page")
	}
	b.shots("admin-outage")
	b.run(network.EmulateNetworkConditions(false, 0, -1, -1))
	b.until("banner gone", `document.getElementById('banner').hidden`, 15*time.Second)

	// An unknown route says so and highlights no tab.
	b.open("nope", "#not-found")
	if n := eval[int](b, `document.querySelectorAll('#nav a.active').length`); n != 0 {
		t.Errorf("%d tabs highlighted on an unknown route", n)
	}

	// Logging out while a page's render waits on the API (a 1 s latency
	// makes one wait) shows the log-in form and keeps it: the render that
	// answers after the logout does not replace it, nor what was typed.
	b.open("cluster", "#kpi-gpus-total")
	b.run(network.EmulateNetworkConditions(false, 1000, -1, -1), chromedp.Evaluate(`location.hash = '#tasks'`, nil),
		chromedp.Sleep(200*time.Millisecond), chromedp.Click("#logout", chromedp.ByID),
		chromedp.WaitVisible("#token", chromedp.ByID), chromedp.SendKeys("#token", "tg_half", chromedp.ByID),
		chromedp.Sleep(2500*time.Millisecond), network.EmulateNetworkConditions(false, 0, -1, -1))
	if got := eval[string](b, `(document.getElementById('main').dataset.page || '') + ' ' + (document.getElementById('token')?.value || '') + ' ' + (document.getElementById('tasks-table') !== null)`); got != "login tg_half false" {
		t.Errorf("after logging out, page, typed token and whether the tasks page is shown are %q, want the log-in form keeping \"tg_half\" and no page", got)
	}

	// A member of product: its team only, no edit controls.
	t.Logf("%.1f s after serve started, the member looks for it running", time.Since(serveAt).Seconds())
	b.login(member)
	b.until("whoami", `document.getElementById('me-team')?.textContent === 'product'`, 5*time.Second)
	b.a11y("member-cluster")
	b.shots("member-cluster")
	b.open("tasks", "#tasks-table")
	b.until("serve listed", `document.querySelector('tr[data-task="serve"] td.state')?.textContent.includes('Running')`, 10*time.Second)
	if tbl := b.text("#tasks-table"); strings.Contains(tbl, "big-train") {
		t.Errorf("a member of product sees ml-engineers' task:\n%s", tbl)
	}
	b.a11y("member-tasks")
	b.shots("member-tasks")
	b.open("teams", "#team-settings")
	b.a11y("member-teams")
	b.shots("member-teams")
	b.open("policies", "#policy-readonly")
	b.a11y("member-policies")
	b.shots("member-policies")
	b.open("usage", "#usage-table")
	b.a11y("member-usage")
	b.shots("member-usage")
	b.open("task/serve", "#events-table")
	b.until("own task's actions", exists("#act-suspend"), 5*time.Second)
	b.a11y("member-task")
	b.shots("member-task")
	for _, page := range []string{"teams", "policies"} {
		b.open(page, "h1")
		time.Sleep(300 * time.Millisecond)
		for _, sel := range []string{"#team-new", "[id^=edit-]", "#team-editor", "#policy-form", "#policy-save", "#policy-preview"} {
			if eval[bool](b, exists(sel)) {
				t.Errorf("a member sees %s on %s", sel, page)
			}
		}
	}
}

// repeats reports whether a message says one of its clauses twice.
func repeats(msg string) bool {
	seen := map[string]bool{}
	for _, part := range strings.FieldsFunc(msg, func(r rune) bool { return r == ';' || r == '—' || r == '\n' }) {
		part = strings.TrimSpace(part)
		if part != "" && seen[part] {
			return true
		}
		seen[part] = true
	}
	return false
}
