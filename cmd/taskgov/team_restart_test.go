package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/postgres/pgtest"
)

// startServerOn runs the server in-process on dir and store ("" for
// SQLite in dir) with cluster file cfg ("" to start from the stored
// configuration), points the CLI at it, and returns its stop.
func startServerOn(t *testing.T, dir, cfg, store string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	logf, err := os.OpenFile(filepath.Join(dir, "server.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	o := serverOptions{config: cfg, dataDir: dir, listen: "127.0.0.1:0", logTo: logf, sampleInterval: time.Minute}
	o.store.store = store
	go func() { errc <- runServer(ctx, o, func(a string) { addrc <- a }) }()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-errc:
		logf.Close()
		t.Fatal(err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-errc
			logf.Close()
		}
	}
	t.Cleanup(stop)
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	t.Setenv("TASKGOV_SERVER", "http://"+addr)
	t.Setenv("TASKGOV_TOKEN", strings.TrimSpace(string(tok)))
	t.Setenv("TASKGOV_CONFIG", filepath.Join(dir, "cli.yaml"))
	return stop
}

// teamKnobsSurviveRestart: a team's lending limits, borrowWithinGroup,
// reclaimWithinGroup, queueingStrategy and borrow caps set through the API
// (a team file) are read back
// identical after a restart from the stored configuration (no --config),
// and still decide: describe shows the lending limit and the GPUs lent.
func teamKnobsSurviveRestart(t *testing.T, store string) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(cliCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := startServerOn(t, dir, cfg, store)
	mustCLI(t, "team", "update", "product", "--lending-limit", "ml.p5.48xlarge:gpus=8,vcpu=96,memoryGiB=1024")
	file := filepath.Join(dir, "vision.yaml")
	_ = os.WriteFile(file, []byte(`borrowWithinGroup: {policy: LowerPriority, maxPriorityWeight: 50}
reclaimWithinGroup: LowerPriority
queueingStrategy: StrictFIFO
quotas: [{instanceType: ml.p5.48xlarge, count: 0, borrowCap: {gpus: 8}}]
`), 0o644)
	mustCLI(t, "team", "create", "vision", "-f", file)
	before := mustCLI(t, "team", "list", "-o", "json")
	for _, want := range []string{`"lendingLimit": {`, `"gpus": 8`, `"vcpu": 96`, `"memoryGiB": 1024`,
		`"borrowWithinGroup": {`, `"maxPriorityWeight": 50`, `"reclaimWithinGroup": "LowerPriority"`, `"borrowCap": {`,
		`"queueingStrategy": "StrictFIFO"`} {
		if !strings.Contains(before, want) {
			t.Fatalf("before the restart, teams lack %s:\n%s", want, before)
		}
	}
	stop()

	startServerOn(t, dir, "", store)
	if after := mustCLI(t, "team", "list", "-o", "json"); after != before {
		t.Fatalf("the restart changed the teams:\nbefore %s\nafter %s", before, after)
	}
	out := mustCLI(t, "team", "describe", "product")
	if !strings.Contains(out, "Lending limit:       ml.p5.48xlarge 8 GPUs, 96 vCPU, 1024 GiB") || !lentGPUs(out, "8") {
		t.Fatalf("after the restart, product should lend 8 of its 16 idle GPUs:\n%s", out)
	}
}

// TestTeamKnobsSurviveRestartSQLite: teamKnobsSurviveRestart on SQLite.
func TestTeamKnobsSurviveRestartSQLite(t *testing.T) {
	teamKnobsSurviveRestart(t, "")
}

// TestTeamKnobsSurviveRestartPostgres: teamKnobsSurviveRestart on the
// repository's throwaway PostgreSQL (skips, saying how to get it, where
// it is not installed).
func TestTeamKnobsSurviveRestartPostgres(t *testing.T) {
	pg := pgtest.Start(t)
	teamKnobsSurviveRestart(t, pg.NewDatabase(t))
}
