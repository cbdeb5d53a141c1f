package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const isolationCluster = `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 2}]
policy: {priorityClasses: [{name: training, weight: 70}]}
teams:
  - {name: alpha, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}
  - {name: beta, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}
`

// TestLocalTaskIsolation (issue 14, finding 1): with the server as root and
// the default --task-user, a task gets none of the server's environment,
// runs as an unprivileged uid of its team's own, cannot read admin.token or
// the database, cannot enter another team's directory or forge its
// checkpoint, and cannot kill the server. The data directory is 0700 and
// its files 0600 even when it was 1777 before.
func TestLocalTaskIsolation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server process")
	}
	if os.Geteuid() != 0 {
		t.Skip("switching users needs root")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	// Tasks must be able to pass the directories above the task directory.
	if err := os.Chmod(filepath.Dir(dir), 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o1777); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "cluster.yaml")
	_ = os.WriteFile(cfg, []byte(isolationCluster), 0o644)
	t.Setenv("TASKGOV_TEST_SECRET", "hunter2")
	s := startServer(t, bin, dir, anyPort, "--config", cfg, "--task-user", "auto")
	defer s.stop()
	tasks := dir + "-tasks"
	defer os.RemoveAll(tasks)
	alphaDir := filepath.Join(tasks, "alpha", "spy")
	submit := func(name, team, script string) {
		t.Helper()
		body := map[string]any{"name": name, "team": team, "instanceType": "ml.p5.48xlarge", "perNode": map[string]int{"gpus": 1},
			"command": []string{"sh", "-c", script}, "env": map[string]string{"DD": dir, "ALPHA": alphaDir}}
		if code, err := s.call("POST", "/api/v1/tasks", body, nil); err != nil || code != 201 {
			t.Fatalf("submit %s: %d %v", name, code, err)
		}
	}
	submit("spy", "alpha", `env > env.txt; id -u > uid
cat "$DD/admin.token" > stolen 2>/dev/null; echo $? > stolen.rc
echo secret > .taskgov-checkpoint
kill -9 $PPID 2>/dev/null; echo $? > kill.rc; sleep 60`)
	read := func(path string) string {
		t.Helper()
		var b []byte
		waitFor(t, 15*time.Second, func() bool {
			var err error
			b, err = os.ReadFile(path)
			return err == nil && len(b) > 0
		})
		return strings.TrimSpace(string(b))
	}
	if rc := read(filepath.Join(alphaDir, "kill.rc")); rc == "0" {
		t.Error("the task signalled the server")
	}
	submit("forger", "beta", `id -u > uid; ls "$ALPHA" > ls.out 2>&1; echo $? > ls.rc
echo forged > "$ALPHA/.taskgov-checkpoint" 2>/dev/null; echo $? > forge.rc
cat "$DD/taskgov.db" > /dev/null 2>&1; echo $? > db.rc`)
	betaDir := filepath.Join(tasks, "beta", "forger")
	for _, rc := range []string{"ls.rc", "forge.rc", "db.rc"} {
		if read(filepath.Join(betaDir, rc)) == "0" {
			t.Errorf("team beta's task succeeded at %s", strings.TrimSuffix(rc, ".rc"))
		}
	}
	if got := read(filepath.Join(alphaDir, ".taskgov-checkpoint")); got != "secret" {
		t.Errorf("alpha's checkpoint marker reads %q", got)
	}
	env := read(filepath.Join(alphaDir, "env.txt"))
	if strings.Contains(env, "hunter2") || !strings.Contains(env, "TASKGOV_TASK=spy") {
		t.Errorf("task environment:\n%s", env)
	}
	if read(filepath.Join(alphaDir, "stolen.rc")) == "0" {
		t.Error("the task read admin.token")
	}
	ua, ub := read(filepath.Join(alphaDir, "uid")), read(filepath.Join(betaDir, "uid"))
	if ua == "0" || ub == "0" || ua == ub {
		t.Errorf("tasks ran as uids %s (alpha) and %s (beta); want two unprivileged uids", ua, ub)
	}
	if code, err := s.call("GET", "/healthz", nil, nil); err != nil || code != 200 {
		t.Fatalf("server gone after the tasks ran: %d %v", code, err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "taskgov.db"): 0o600,
		filepath.Join(dir, "admin.token"): 0o600, filepath.Join(tasks, "alpha"): 0o710, alphaDir: 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want mode %v", path, fi.Mode().Perm(), err, want)
		}
	}
}

// TestTaskThatKillsTheServerIsNotRequeuedForever (issue 14, finding 1): a
// task running as the server's user kills it with kill -9 $PPID. Each start
// requeues it, until it has taken the server down DefaultCrashLimit times
// in a row: then it fails with the reason and the server stays up.
func TestTaskThatKillsTheServerIsNotRequeuedForever(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real server processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	_ = os.WriteFile(cfg, []byte(isolationCluster), 0o644)
	s := startServer(t, bin, dir, anyPort, "--config", cfg)
	body := map[string]any{"name": "killer", "team": "alpha", "instanceType": "ml.p5.48xlarge",
		"command": []string{"sh", "-c", "sleep 0.3; kill -9 $PPID"}}
	if code, err := s.call("POST", "/api/v1/tasks", body, nil); err != nil || code != 201 {
		t.Fatalf("submit: %d %v", code, err)
	}
	deaths := 0
	for {
		done := make(chan struct{})
		go func() { _ = s.cmd.Wait(); close(done) }()
		select {
		case <-done:
			if deaths++; deaths > 4 {
				t.Fatalf("the server died %d times", deaths)
			}
			s = startServer(t, bin, dir, anyPort)
			continue
		case <-time.After(5 * time.Second):
		}
		defer func() { _ = s.cmd.Process.Signal(syscall.SIGTERM); <-done }()
		break
	}
	var v struct{ State, Message string }
	if _, err := s.call("GET", "/api/v1/tasks/killer", nil, &v); err != nil {
		t.Fatal(err)
	}
	if deaths != 3 || v.State != "Failed" || !strings.Contains(v.Message, "died 3 times in a row") {
		t.Fatalf("server died %d times; task %s: %s", deaths, v.State, v.Message)
	}
	t.Logf("server died %d times, then: %s: %s", deaths, v.State, v.Message)
}

func (s *serverProc) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
}
