package httpapi

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

type preemptionList struct {
	Preemptions []model.PreemptionRecord
	NextBefore  int64
}

// TestRecentPreemptions: a reclaim on a real engine is listed with its
// victim, preemptor, both teams, reason and cost; each member sees it
// (it concerns both teams) with the other team's task hidden, and may not
// ask for another team; a suspension is not listed; pages follow
// nextBefore; hostile paging and filters get 400 with the field and a fix.
func TestRecentPreemptions(t *testing.T) {
	e := newEnv(t, testCluster)
	big := spec("a-big", "alpha", "sleep", "60")
	big.Nodes = 3 // borrows one of beta's nodes
	e.mustDo("POST", "/api/v1/tasks", e.admin, big, 201, nil)
	e.waitState("a-big", model.StateRunning, 10*time.Second)
	serve := spec("b-serve", "beta", "sleep", "60")
	serve.Nodes, serve.Priority = 2, "inference"
	e.mustDo("POST", "/api/v1/tasks", e.admin, serve, 201, nil)
	e.waitState("a-big", model.StatePending, 10*time.Second)

	var all preemptionList
	e.mustDo("GET", "/api/v1/preemptions", e.admin, nil, 200, &all)
	if len(all.Preemptions) != 1 {
		t.Fatalf("preemptions: %+v", all.Preemptions)
	}
	p := all.Preemptions[0]
	if p.Task != "a-big" || p.Team != "alpha" || p.Preemptor != "b-serve" || p.PreemptorTeam != "beta" || p.Reason != model.Reclaim ||
		p.GPUs != 24 || p.RestartGPUSeconds != float64(24*model.DefaultRestartCostSeconds) || p.WorkGPUSeconds < 0 || p.At.IsZero() || all.NextBefore != 0 {
		t.Errorf("the reclaim: %+v, nextBefore %d", p, all.NextBefore)
	}
	alpha, beta := e.token(model.RoleMember, "alpha"), e.token(model.RoleMember, "beta")
	var mine preemptionList
	e.mustDo("GET", "/api/v1/preemptions", alpha, nil, 200, &mine)
	if len(mine.Preemptions) != 1 || mine.Preemptions[0].Task != "a-big" || mine.Preemptions[0].Preemptor != model.OtherTeamsTask || mine.Preemptions[0].PreemptorTeam != "" {
		t.Errorf("alpha's member (the victim's team): %+v", mine.Preemptions)
	}
	mine = preemptionList{}
	e.mustDo("GET", "/api/v1/preemptions?team=beta", beta, nil, 200, &mine)
	if len(mine.Preemptions) != 1 || mine.Preemptions[0].Task != model.OtherTeamsTask || mine.Preemptions[0].Team != "" || mine.Preemptions[0].Preemptor != "b-serve" {
		t.Errorf("beta's member (the preemptor's team): %+v", mine.Preemptions)
	}
	for _, q := range []string{"team=alpha", "team=beta&team=alpha"} {
		if code, _ := e.do("GET", "/api/v1/preemptions?"+q, beta, nil); code != 403 {
			t.Errorf("beta's member asks ?%s: %d, want 403", q, code)
		}
	}
	// A suspension is not a preemption.
	e.mustDo("POST", "/api/v1/tasks/b-serve/suspend", beta, nil, 200, nil)
	e.waitState("b-serve", model.StateSuspended, 10*time.Second)
	e.waitState("a-big", model.StateRunning, 10*time.Second) // and nothing else was preempted since
	all = preemptionList{}
	e.mustDo("GET", "/api/v1/preemptions", e.admin, nil, 200, &all)
	if len(all.Preemptions) != 1 {
		t.Errorf("after a suspension: %+v", all.Preemptions)
	}
	// Pages: a full page says where the next starts.
	var page preemptionList
	e.mustDo("GET", "/api/v1/preemptions?limit=1", e.admin, nil, 200, &page)
	if len(page.Preemptions) != 1 || page.NextBefore != page.Preemptions[0].ID {
		t.Errorf("a page of 1: %+v", page)
	}
	page = preemptionList{}
	e.mustDo("GET", fmt.Sprintf("/api/v1/preemptions?limit=1&before=%d", all.Preemptions[0].ID), e.admin, nil, 200, &page)
	if len(page.Preemptions) != 0 || page.NextBefore != 0 {
		t.Errorf("the page after the last: %+v", page)
	}
	for q, field := range map[string]string{"limit=0": "limit", "limit=1001": "limit", "limit=ten": "limit", "before=0": "before",
		"before=-5": "before", "before=x": "before", "team=": "team"} {
		code, body := e.do("GET", "/api/v1/preemptions?"+q, e.admin, nil)
		if code != 400 || !strings.Contains(string(body), `"field":"`+field+`"`) || !strings.Contains(string(body), `"fix":`) {
			t.Errorf("?%s: %d %s", q, code, body)
		}
	}
}
