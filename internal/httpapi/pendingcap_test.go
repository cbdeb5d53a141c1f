package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/executor/local"
	"github.com/taskgov/taskgov/internal/model"
)

// Two teams without quota on a cluster that lends nothing: every task stays
// pending. The cluster file caps pending tasks at 3 a team.
const pendingCapCluster = `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]
policy: {borrowUnallocated: false, maxPendingPerTeam: 3}
teams:
  - {name: alpha, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 0}]}
  - {name: beta, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 0}]}
`

// TestPendingCapRefusesARunawayTeam: a member's team at maxPendingPerTeam
// gets 429 naming the cap, its count and how to raise it, and nothing is
// stored (the refusal is audited); another team still submits; a retry of
// a stored submission with its Idempotency-Key gets its task, not a 429; a
// member cannot change the cap, an admin can (audited), a cap out of range
// is a 400 naming the field and changes nothing; the cap survives a restart
// from the store.
func TestPendingCapRefusesARunawayTeam(t *testing.T) {
	e := newEnv(t, pendingCapCluster)
	alpha, beta := e.token(model.RoleMember, "alpha"), e.token(model.RoleMember, "beta")
	submit := func(token, name, team, key string) (int, string) {
		t.Helper()
		code, _, body := e.submitKeyed(token, key, `{"name":"`+name+`","team":"`+team+`","instanceType":"ml.p5.48xlarge","command":["true"]}`)
		return code, body
	}
	for i, name := range []string{"a1", "a2", "a3"} {
		if code, body := submit(alpha, name, "alpha", "key-"+name); code != 201 {
			t.Fatalf("submission %d under the cap: %d %s", i+1, code, body)
		}
	}
	code, body := submit(alpha, "a4", "alpha", "")
	for _, want := range []string{`"code":"pending_cap"`, "team alpha has 3 pending tasks", "maxPendingPerTeam 3", "--max-pending-per-team"} {
		if code != 429 || !strings.Contains(body, want) {
			t.Fatalf("a submission past the cap: %d %s (want 429 with %q)", code, body, want)
		}
	}
	if _, ok := e.eng.View().Record("a4"); ok {
		t.Fatal("the refused task was stored")
	}
	if code, body := submit(alpha, "a3", "alpha", "key-a3"); code != 201 {
		t.Fatalf("a retry of a stored submission at the cap: %d %s, want its task", code, body)
	}
	if code, body := submit(beta, "b1", "beta", ""); code != 201 {
		t.Fatalf("another team at alpha's cap: %d %s", code, body)
	}
	var audit struct{ Entries []model.AuditEntry }
	e.mustDo("GET", "/api/v1/audit?action=task.submit", e.admin, nil, 200, &audit)
	refused, refusals := false, 0
	for _, a := range audit.Entries {
		if a.Target == "alpha/a4" || a.Target == "a4" && a.Result != "ok" {
			refusals++
			refused = refused || (strings.HasPrefix(a.Result, "refused: team alpha has 3 pending tasks") && a.Team == "alpha")
		}
	}
	if !refused || refusals != 1 {
		t.Fatalf("the refused submission is not in the audit log once: %+v", audit.Entries)
	}

	var pol model.Policy
	e.mustDo("GET", "/api/v1/policy", e.admin, nil, 200, &pol)
	raised := pol
	four := 4
	raised.MaxPendingPerTeam = &four
	e.mustDo("PUT", "/api/v1/policy", alpha, raised, 403, nil)
	bad := pol
	zero := 0
	bad.MaxPendingPerTeam = &zero
	if code, out := e.do("PUT", "/api/v1/policy", e.admin, bad); code != 400 || !strings.Contains(string(out), "policy.maxPendingPerTeam") {
		t.Fatalf("a cap of 0: %d %s", code, out)
	}
	e.mustDo("PUT", "/api/v1/policy", e.admin, raised, 200, nil)
	if code, body := submit(alpha, "a4", "alpha", ""); code != 201 {
		t.Fatalf("under the raised cap: %d %s", code, body)
	}
	e.mustDo("GET", "/api/v1/audit?action=policy.set", e.admin, nil, 200, &audit)
	if len(audit.Entries) == 0 {
		t.Fatal("the cap's change is not in the audit log")
	}

	// A restart from the store (no cluster file): the raised cap holds.
	e.srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.eng.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	exec := local.New(t.TempDir(), time.Now)
	t.Cleanup(exec.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var err error
	if e.eng, err = engine.Open(context.Background(), engine.Options{Store: e.st, Executor: exec, Log: log}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.eng.Shutdown(context.Background()) })
	e.srv = httptest.NewServer(New(e.eng, log, func() bool { return true }))
	t.Cleanup(e.srv.Close)
	e.url = e.srv.URL
	if code, body := submit(alpha, "a5", "alpha", ""); code != 429 || !strings.Contains(body, "team alpha has 4 pending tasks") {
		t.Fatalf("past the raised cap after a restart: %d %s", code, body)
	}
}
