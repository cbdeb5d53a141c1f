package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/executor"
)

// TestReusedNameStartsWithoutTheEarlierCheckpoints: a new task (record) of a
// finished task's name starts in an empty checkpoint directory, the earlier
// one kept as DIR.<its seq>; its own later runs, after a server restart too,
// keep its own checkpoints; a task that asks to keep them starts from the
// earlier task's.
func TestReusedNameStartsWithoutTheEarlierCheckpoints(t *testing.T) {
	dir := t.TempDir()
	e := New(dir, time.Now)
	defer func() { e.Close() }()
	run := func(seq int64, resumes int, keep bool, script string) {
		t.Helper()
		spec := executor.StartSpec{Task: "again", Team: "alpha", Seq: seq, Resumes: resumes, KeepCheckpoints: keep,
			Command: []string{"sh", "-c", script}}
		if ev := runPod(t, e, spec); ev.ExitCode != 0 {
			t.Fatalf("record %d, run %d: %q exited %d", seq, resumes+1, script, ev.ExitCode)
		}
	}
	ckpt := e.CheckpointDir("alpha", "again")
	run(1, 0, false, "test ! -e state && echo one > state && touch "+CheckpointFile)
	run(2, 0, false, "test ! -e state && echo two > state")
	if b, err := os.ReadFile(filepath.Join(ckpt+".1", "state")); err != nil || strings.TrimSpace(string(b)) != "one" {
		t.Fatalf("the earlier task's directory is not kept as %s.1: %q %v", ckpt, b, err)
	}
	run(2, 1, false, "grep -qx two state") // its own second run

	e.Close()
	e = New(dir, time.Now) // a server restart
	run(2, 2, false, "grep -qx two state")
	run(3, 0, true, "grep -qx two state && echo three > state")
	if _, err := os.Stat(ckpt + ".2"); err == nil {
		t.Fatal("a task that keeps the checkpoints moved them aside")
	}
	run(4, 0, false, "test ! -e state")
	if b, err := os.ReadFile(filepath.Join(ckpt+".3", "state")); err != nil || strings.TrimSpace(string(b)) != "three" {
		t.Fatalf("the third task's directory is not kept: %q %v", b, err)
	}
}
