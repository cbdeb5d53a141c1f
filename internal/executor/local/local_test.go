package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/executor"
)

// runPod starts one pod of task in team and waits for it to exit.
func runPod(t *testing.T, e *Executor, spec executor.StartSpec) executor.Event {
	t.Helper()
	if spec.Pods == nil {
		spec.Pods = []executor.Pod{{Rank: 0, Node: "n1", GPUs: []int{0}}}
	}
	if err := e.Start(spec); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case ev := <-e.Events():
			if ev.Exited && ev.Task == spec.Task {
				return ev
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("pod of %s did not exit", spec.Task)
		}
	}
}

// TestPodEnvironmentIsScrubbed: a pod sees none of the server's environment,
// and a reserved name in the task's env cannot replace taskgov's value
// (issue 14, findings 1 and 2).
func TestPodEnvironmentIsScrubbed(t *testing.T) {
	t.Setenv("TASKGOV_TEST_SECRET", "hunter2")
	dir := t.TempDir()
	e := New(dir, time.Now)
	defer e.Close()
	spec := executor.StartSpec{Task: "envy", Team: "alpha", Command: []string{"sh", "-c", "env > \"$TASKGOV_CHECKPOINT_DIR/env.txt\""},
		Env: map[string]string{"MINE": "yes", "TASKGOV_DATA_DIR": "/elsewhere", "RANK": "7"}}
	if ev := runPod(t, e, spec); ev.ExitCode != 0 {
		t.Fatalf("pod exited %d", ev.ExitCode)
	}
	b, err := os.ReadFile(filepath.Join(e.CheckpointDir("alpha", "envy"), "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	env := string(b)
	for _, bad := range []string{"hunter2", "TASKGOV_DATA_DIR=/elsewhere", "RANK=7"} {
		if strings.Contains(env, bad) {
			t.Errorf("pod environment holds %q:\n%s", bad, env)
		}
	}
	for _, want := range []string{"MINE=yes", "TASKGOV_TASK=envy", "TASKGOV_TEAM=alpha", "RANK=0", "TASKGOV_DATA_DIR=" + e.stateDir, "PATH=" + DefaultPath} {
		if !strings.Contains(env, want+"\n") {
			t.Errorf("pod environment lacks %q:\n%s", want, env)
		}
	}
}

// TestFilesAreTheServersAlone: logs and the state directory are 0600/0700
// whatever the umask or the directory's earlier mode, and a pod runs in its
// team's own directory (issue 14, finding 12).
func TestFilesAreTheServersAlone(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o1777); err != nil {
		t.Fatal(err)
	}
	e := New(dir, time.Now)
	defer e.Close()
	runPod(t, e, executor.StartSpec{Task: "modes", Team: "alpha", Command: []string{"sh", "-c", "pwd > here"}})
	check := func(path string, want os.FileMode) {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
	check(dir, 0o700)
	check(e.logPath("modes", 0), 0o600)
	check(e.CheckpointDir("alpha", "modes"), 0o700)
	b, _ := os.ReadFile(filepath.Join(e.CheckpointDir("alpha", "modes"), "here"))
	if strings.TrimSpace(string(b)) != e.CheckpointDir("alpha", "modes") {
		t.Errorf("pod ran in %q, want its checkpoint directory", b)
	}
}

// TestCheckpointLinkIsIgnored: a checkpoint marker that is a link to
// another file (another team's marker, say) is not taken for a checkpoint.
func TestCheckpointLinkIsIgnored(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if !checkpointTime(dir).IsZero() {
		t.Fatal("no marker yet, but a time")
	}
	if err := os.Symlink(other, filepath.Join(dir, CheckpointFile)); err != nil {
		t.Fatal(err)
	}
	if !checkpointTime(dir).IsZero() {
		t.Error("a link was taken for a checkpoint")
	}
}

// TestCrashLoopGuard: a task whose run was cut short by the server's death
// CrashLimit times in a row is refused on its next start; a new submission
// of the name, or a run that ends under a live server, clears the count.
func TestCrashLoopGuard(t *testing.T) {
	dir := t.TempDir()
	spec := executor.StartSpec{Task: "killer", Team: "alpha", Command: []string{"true"}, Pods: []executor.Pod{{Rank: 0, Node: "n1"}}}
	first := New(dir, time.Now)
	if ev := runPod(t, first, spec); ev.ExitCode != 0 {
		t.Fatal(ev.ExitCode)
	}
	first.Close()
	for i := 1; i <= DefaultCrashLimit; i++ {
		e := New(dir, time.Now)
		e.Recover()
		if i < DefaultCrashLimit {
			if err := e.crashLoopError("killer"); i > 1 && err != nil {
				t.Fatalf("refused after %d crashes: %v", i-1, err)
			}
		}
		// The pod runs and the server dies with it: its run marker stays
		// (written as Start writes it; the pod itself is never reaped).
		if err := e.markRunning("killer", []int{999999}); err != nil {
			t.Fatal(err)
		}
		e.Close()
	}
	e := New(dir, time.Now)
	defer e.Close()
	e.Recover()
	spec.Resumes++
	err := e.Start(spec)
	if err == nil || !strings.Contains(err.Error(), "died 3 times in a row") {
		t.Fatalf("start after %d crashes: %v, want the crash-loop refusal", DefaultCrashLimit, err)
	}
	spec.Resumes = 0 // submitted again
	if ev := runPod(t, e, spec); ev.ExitCode != 0 {
		t.Fatalf("resubmitted task exited %d", ev.ExitCode)
	}
	time.Sleep(50 * time.Millisecond)
	if n := e.crashes("killer"); n != 0 {
		t.Errorf("crash count %d after a clean run", n)
	}
}
