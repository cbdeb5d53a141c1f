package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/executor/local"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlite"
)

const testCluster = `
nodeGroups:
  - {name: p5, instanceType: ml.p5.48xlarge, count: 4, topology: {nodesPerLayer3: 2, layer3PerLayer2: 2, layer2PerLayer1: 1}}
policy:
  taskPrioritization: TaskRanking
  preemption: Immediate
  priorityClasses: [{name: inference, weight: 90}, {name: training, weight: 70}]
teams:
  - {name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
  - {name: beta, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
`

// env is a running API server over real HTTP, SQLite and child processes.
type env struct {
	t      *testing.T
	url    string
	admin  string
	st     *sqlite.Store
	eng    *engine.Engine
	srv    *httptest.Server
	tokens map[string]string // role name -> secret
}

func newEnv(t *testing.T, clusterYAML string) *env {
	t.Helper()
	return newEnvWith(t, clusterYAML, envOptions{})
}

// envOptions change what newEnvWith builds.
type envOptions struct {
	store  func(*sqlite.Store) engine.Store // wraps the store the engine and API use
	server func(*Server)                    // changes the Server before it serves
}

// newEnvWith is newEnv with opts.
func newEnvWith(t *testing.T, clusterYAML string, opts envOptions) *env {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(path, []byte(clusterYAML), 0o644); err != nil {
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
	exec := local.NewWith(local.Options{StateDir: dir, Images: c.Images, Now: time.Now})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var est engine.Store = st
	if opts.store != nil {
		est = opts.store(st)
	}
	eng, err := engine.Open(context.Background(), engine.Options{Store: est, Executor: exec, Cluster: &c, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	api := New(eng, log, func() bool { return true }).WithRunCheck(exec.CheckRun) // as taskgov server wires it
	if opts.server != nil {
		opts.server(api)
	}
	srv := httptest.NewServer(api)
	e := &env{t: t, url: srv.URL, st: st, eng: eng, srv: srv, tokens: map[string]string{}}
	_, e.admin, err = IssueToken(context.Background(), st, model.RoleAdmin, "", "test", "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = eng.Shutdown(ctx)
		exec.Close()
		st.Close()
	})
	return e
}

// token issues a token over the API.
func (e *env) token(role, team string) string {
	var out struct{ Token string }
	e.mustDo("POST", "/api/v1/tokens", e.admin, map[string]string{"role": role, "team": team}, 201, &out)
	return out.Token
}

// do sends a request and returns status and body.
func (e *env) do(method, path, token string, body any) (int, []byte) {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	case []byte:
		rd = bytes.NewBuffer(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewBuffer(j)
	}
	req, _ := http.NewRequest(method, e.url+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func (e *env) mustDo(method, path, token string, body any, want int, out any) {
	e.t.Helper()
	code, b := e.do(method, path, token, body)
	if code != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, code, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			e.t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
}

// waitState polls a task until it reaches state or the deadline passes.
func (e *env) waitState(name string, state model.TaskState, within time.Duration) apitypes.Task {
	e.t.Helper()
	deadline := time.Now().Add(within)
	var v apitypes.Task
	for time.Now().Before(deadline) {
		e.mustDo("GET", "/api/v1/tasks/"+name, e.admin, nil, 200, &v)
		if v.State == state {
			return v
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatalf("task %s is %s (%s), not %s, after %v", name, v.State, v.Message, state, within)
	return v
}

func spec(name, team string, cmd ...string) model.TaskSpec {
	return model.TaskSpec{Name: name, Team: team, InstanceType: "ml.p5.48xlarge", Priority: "training", Command: cmd}
}
