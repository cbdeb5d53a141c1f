package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/loadavg"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlite"
)

// TestDashboardTasksAt100kPending stores 100,000 pending tasks of two
// teams, starts a real server on them, and uses the Tasks page in headless
// Chromium: the pending queues show each team's first tasks and how many
// more wait (the API's totals), every queue read the page makes is one page
// of a team's queue, never the whole queue, and the page keeps refreshing;
// the Cluster page counts the whole queue by reason (the API's summary).
// It logs the first render, the bytes and time of one refresh's queue
// reads, and the longest main-thread task over several refreshes.
func TestDashboardTasksAt100kPending(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser")
	}
	dir := t.TempDir()
	const n = 100000
	seedPending(t, dir, n)
	started := time.Now()
	base, admin := serverIn(t, dir)
	t.Logf("server up on %d pending tasks in %v", n, time.Since(started).Round(time.Millisecond))
	b := newBrowser(t, base, 120*time.Second)
	b.login(admin)
	b.run(chromedp.Evaluate(`window.__long = 0; new PerformanceObserver(l => { for (const e of l.getEntries()) window.__long = Math.max(window.__long, e.duration); }).observe({type: 'longtask', buffered: true})`, nil))
	start := time.Now()
	b.open("tasks", "#queue-table")
	t.Logf("Tasks with %d pending: queue on screen %v after navigation; its reads: %s", n, time.Since(start).Round(time.Millisecond),
		eval[string](b, `performance.getEntriesByType('resource').filter(e => e.name.includes('/api/v1/')).map(e => e.name.replace(/^.*\/api\/v1\//, '') + ' ' + e.encodedBodySize + ' B ' + Math.round(e.startTime) + '+' + Math.round(e.duration) + ' ms').join('; ')`))
	// Each team's queue shows its first rows and the count of the rest, as
	// the API counts them.
	cl := client.New(base, admin)
	for _, team := range []string{"ml-engineers", "product"} {
		var q struct{ Total int }
		if err := cl.Do(b.ctx, "GET", "/api/v1/queue?limit=1&team="+team, nil, &q); err != nil {
			t.Fatal(err)
		}
		b.until("the rest of "+team+"'s queue counted", fmt.Sprintf(`document.querySelector('#queue-table tr[data-key="more-%s"]')?.textContent.includes(%q)`, team, fmt.Sprintf("%s more", commas(q.Total-10))), 30*time.Second)
	}
	// The figures are written with thousands separators, as the API counts them.
	var counts struct{ Summary apitypes.TaskSummary }
	if err := cl.Do(b.ctx, "GET", "/api/v1/tasks?limit=1&summary=1", nil, &counts); err != nil {
		t.Fatal(err)
	}
	b.until("the pending count", fmt.Sprintf(`document.getElementById('count-pending').textContent === %q`, commas(counts.Summary.Counts[model.StatePending])), 30*time.Second)
	// Three refreshes later: every queue read was a page.
	b.run(chromedp.Evaluate(`performance.clearResourceTimings()`, nil))
	time.Sleep(6500 * time.Millisecond)
	reads := eval[[]string](b, `performance.getEntriesByType('resource').filter(e => e.name.includes('/api/v1/queue')).map(e => e.name.replace(/^.*\/api\/v1\//, '') + ' ' + e.encodedBodySize + ' B ' + Math.round(e.duration) + ' ms')`)
	if len(reads) == 0 {
		t.Fatal("no queue read in three refresh periods: the page stopped refreshing")
	}
	for _, r := range reads {
		if !strings.Contains(r, "limit=") {
			t.Errorf("the page read the whole queue: %s", r)
		}
	}
	t.Logf("queue reads over three refresh periods: %s", strings.Join(reads, "; "))
	t.Logf("every read of the last refresh period: %s", eval[string](b, `performance.getEntriesByType('resource').filter(e => e.startTime > performance.now() - 2200).map(e => e.name.replace(/^.*\/api\/v1\//, '') + ' ' + e.encodedBodySize + ' B ' + Math.round(e.duration) + ' ms').join('; ')`))
	// What the page read before, for comparison: the whole queue.
	for _, path := range []string{"/api/v1/queue", "/api/v1/queue?team=product&limit=10"} {
		var body json.RawMessage
		start := time.Now()
		if err := cl.Do(b.ctx, "GET", path, nil, &body); err != nil {
			t.Fatal(err)
		}
		t.Logf("GET %s from Go: %d bytes in %v", path, len(body), time.Since(start).Round(time.Millisecond))
	}
	t.Logf("longest main-thread task since login: %.0f ms (load average %s)", eval[float64](b, `window.__long`), loadavg.String())
	b.shots("admin-tasks-100k-pending")
	// The Cluster page counts the same queue by reason (counted once per
	// queue change on the server, not per refresh).
	var sum struct{ Summary []apitypes.QueueGroup }
	if err := cl.Do(b.ctx, "GET", "/api/v1/queue?summary=1", nil, &sum); err != nil {
		t.Fatal(err)
	}
	waiting := 0
	for _, g := range sum.Summary {
		waiting += g.Tasks
	}
	if waiting < n-4 {
		t.Errorf("the summary counts %d waiting of %d pending on 4 nodes", waiting, n)
	}
	start = time.Now()
	b.open("cluster", "#waiting-table")
	b.until("the waiting tasks counted", fmt.Sprintf(`document.querySelector('#waiting-table tr[data-type="ml.p5.48xlarge"] td.waiting')?.textContent === %q`, commas(waiting)), 30*time.Second)
	t.Logf("Cluster with %d pending: waiting tasks counted on screen %v after navigation; queue?summary=1 %s", n, time.Since(start).Round(time.Millisecond),
		eval[string](b, `performance.getEntriesByType('resource').filter(e => e.name.includes('queue?summary=1')).map(e => e.encodedBodySize + ' B ' + Math.round(e.duration) + ' ms').join(', ')`))
	b.shots("admin-cluster-100k-pending")
}

// seedPending writes n pending one-node tasks of two teams into dir's store.
func seedPending(t *testing.T, dir string, n int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "cluster.yaml"), []byte(cliCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(dir, "taskgov.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Now().Add(-24 * time.Hour).UTC()
	err = st.Commit(context.Background(), func(tx *sqlite.Tx) error {
		for i := range n {
			team := []string{"ml-engineers", "product"}[i%2]
			spec := model.TaskSpec{Name: fmt.Sprintf("wait-%06d", i), Team: team, Priority: []string{"training", "inference", "fine-tuning"}[i%3],
				InstanceType: "ml.p5.48xlarge", Nodes: 1, Command: []string{"sleep", "3600"}}
			r := model.TaskRecord{Name: spec.Name, Team: team, Seq: int64(i + 1), Spec: spec, State: model.StatePending, SubmittedAt: t0.Add(time.Duration(i) * 100 * time.Millisecond)}
			if err := tx.InsertTask(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// commas writes n with thousands separators, as the page's en-US locale does.
func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
