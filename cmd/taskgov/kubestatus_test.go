package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/executor/local"
	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlite"
)

// TestWorkloadStatusHidesOtherTeams: a workload's status annotation is read
// by its own namespace's readers, so it hides other teams' task names as the
// API hides them from that team's members (issue 14, finding 5): here the
// task whose gang holds the nodes it waits for.
func TestWorkloadStatusHidesOtherTeams(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cluster.yaml")
	cluster := `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 2}]
policy: {starvationBoundSeconds: 0}
teams:
  - {name: small, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
  - {name: big, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
`
	if err := os.WriteFile(path, []byte(cluster), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.LoadCluster(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(dir, "taskgov.db"))
	if err != nil {
		t.Fatal(err)
	}
	exec := local.New(dir, time.Now)
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{Store: st, Executor: exec, Cluster: &c, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = eng.Shutdown(sctx)
		exec.Close()
		st.Close()
	})
	submit := func(name, team string, nodes int, cmd ...string) {
		t.Helper()
		if _, err := eng.Submit(ctx, "test", model.TaskSpec{Name: name, Team: team, InstanceType: "ml.p5.48xlarge", Nodes: nodes, Command: cmd}); err != nil {
			t.Fatal(err)
		}
	}
	g := engineGovernor{eng: eng}
	wait := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !ok(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("never: %s", what)
			}
		}
	}
	status := func(name string) string {
		st, _, err := g.Status(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return statusTextOf(st)
	}
	submit("s1", "small", 1, "sleep", "1")
	submit("s2", "small", 1, "sleep", "30")
	wait("s2 runs", func() bool { tk, err := eng.Task(ctx, "s2"); return err == nil && tk.State == model.StateRunning })
	submit("secret-gang", "big", 2, "true")
	wait("s1 finishes", func() bool { tk, err := eng.Task(ctx, "s1"); return err == nil && tk.State == model.StateSucceeded })
	submit("s3", "small", 1, "true")
	wait("s3 waits for the hold", func() bool {
		tk, err := eng.Task(ctx, "s3")
		return err == nil && strings.Contains(tk.Why, "held for task secret-gang")
	})
	if got := status("s3"); strings.Contains(got, "secret-gang") || !strings.Contains(got, "another team's task") {
		t.Errorf("s3's status annotation: %q", got)
	}
	if got := status("secret-gang"); !strings.Contains(got, "Pending") {
		t.Errorf("secret-gang's own status: %q", got)
	}
}

// statusTextOf is what the annotation shows of a status.
func statusTextOf(st kube.TaskStatus) string { return st.State + " " + st.Why + " " + st.Message }
