package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
)

func scrape(t *testing.T, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", os.Getenv("TASKGOV_SERVER")+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func metricValue(t *testing.T, text, series string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no series %s in:\n%s", series, text)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// TestMetricsMatchTheAPI scrapes /metrics while work runs and waits, and
// checks the values against the API's own answers.
func TestMetricsMatchTheAPI(t *testing.T) {
	cliServer(t)
	admin := os.Getenv("TASKGOV_TOKEN")
	mustCLI(t, "start-job", "--job-name", "run", "-n", "ml-engineers", "--node-count", "2", "--command", "sleep 30", "--instance-type", "ml.p5.48xlarge")
	waitJob(t, "run", "Running")
	mustCLI(t, "start-job", "--job-name", "waits", "-n", "ml-engineers", "--node-count", "4", "--command", "true", "--instance-type", "ml.p5.48xlarge")
	waitJob(t, "waits", "Pending")
	code, text := scrape(t, admin)
	if code != 200 {
		t.Fatalf("scrape: %d %s", code, text)
	}
	var q struct{ Pending []apitypes.Task }
	cl, err := apiClient()
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Do(context.Background(), "GET", "/api/v1/queue", nil, &q); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for _, p := range q.Pending {
		want[p.Team+"/"+string(p.Reason.Code)]++
	}
	for k, n := range want {
		team, reason, _ := strings.Cut(k, "/")
		if got := metricValue(t, text, `taskgov_pending_tasks{reason="`+reason+`",team="`+team+`"}`); got != n {
			t.Errorf("pending %s: metrics %v, API %v", k, got, n)
		}
	}
	if got := metricValue(t, text, `taskgov_team_pending_tasks{team="ml-engineers"}`); got != float64(len(q.Pending)) {
		t.Errorf("team pending: metrics %v, API %d", got, len(q.Pending))
	}
	if got := metricValue(t, text, "taskgov_pending_tasks_age_seconds"); got < 0 || got > 30 {
		t.Errorf("pending tasks' age: %v s", got)
	}
	var u struct{ Usage []apitypes.Usage }
	if err := cl.Do(context.Background(), "GET", "/api/v1/usage", nil, &u); err != nil {
		t.Fatal(err)
	}
	for _, row := range u.Usage {
		lbl := `{instance_type="` + row.InstanceType + `",team="` + row.Team + `"}`
		if got := metricValue(t, text, "taskgov_team_used_gpus"+lbl); got != float64(row.UsedGPUs) {
			t.Errorf("used %s: metrics %v, API %v", row.Team, got, row.UsedGPUs)
		}
		if got := metricValue(t, text, "taskgov_team_quota_gpus"+lbl); got != float64(row.QuotaGPUs) {
			t.Errorf("quota %s: metrics %v, API %v", row.Team, got, row.QuotaGPUs)
		}
	}
	if got := metricValue(t, text, `taskgov_allocated_gpus{instance_type="ml.p5.48xlarge"}`); got != 16 {
		t.Errorf("allocated GPUs %v, want 16", got)
	}
	if got := metricValue(t, text, `taskgov_held_nodes{instance_type="ml.p5.48xlarge"}`); got != 0 {
		t.Errorf("held nodes %v, want 0 (nothing has waited past the starvation bound)", got)
	}
	if got := metricValue(t, text, `taskgov_admissions_total{borrowed="false",team="ml-engineers"}`); got != 1 {
		t.Errorf("admissions %v, want 1", got)
	}
	if !strings.Contains(text, "taskgov_scheduling_cycle_seconds_count") || !strings.Contains(text, "taskgov_admission_wait_seconds_count 1") {
		t.Errorf("histograms missing:\n%s", text)
	}
	// Every commit is counted with the inputs that shared it.
	if commits, ops := metricValue(t, text, "taskgov_store_commit_seconds_count"), metricValue(t, text, "taskgov_commit_batch_ops_sum"); commits < 1 ||
		ops < commits || metricValue(t, text, "taskgov_commit_batch_ops_count") != commits {
		t.Errorf("commits %v carrying %v inputs:\n%s", commits, ops, text)
	}
	member := strings.TrimSpace(mustCLI(t, "token", "create", "--role", "member", "--team", "product"))
	if code, _ := scrape(t, member); code != 403 {
		t.Fatalf("a member scraped metrics: %d", code)
	}
}

// TestTrendsAreSampled: the sampler stores utilisation and the API serves it.
func TestTrendsAreSampled(t *testing.T) {
	cliServer(t)
	mustCLI(t, "start-job", "--job-name", "busy", "-n", "ml-engineers", "--command", "sleep 30", "--instance-type", "ml.p5.48xlarge")
	waitJob(t, "busy", "Running")
	cl, _ := apiClient()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var tr struct {
			Samples []struct {
				InstanceType   string
				GPUs, GPUsUsed float64
			}
		}
		if err := cl.Do(context.Background(), "GET", "/api/v1/trends?window=1h", nil, &tr); err != nil {
			t.Fatal(err)
		}
		n := len(tr.Samples)
		if n >= 2 && tr.Samples[n-1].GPUs == 32 && tr.Samples[n-1].GPUsUsed == 8 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("samples: %+v", tr.Samples)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
