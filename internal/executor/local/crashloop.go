package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Crash-loop guard. A pod that kills the server (possible when tasks run as
// the server's user) is requeued by the next start, and would kill it
// again. So the executor marks each task while its pods run (a file in the
// state directory, removed once they have all been reaped); a marker found
// at start means the server died while the task ran. After CrashLimit such
// deaths in a row, Start refuses the task with the reason, and the engine
// fails it. A run that ends while the server lives clears the count.

// DefaultCrashLimit is how many server deaths in a row a task may be
// running at before it is not started again.
const DefaultCrashLimit = 3

func (e *Executor) runMarker(task string) string {
	return filepath.Join(e.stateDir, "tasks", task, "running")
}

func (e *Executor) crashFile(task string) string {
	return filepath.Join(e.stateDir, "tasks", task, "crashes")
}

// crashes returns how many server deaths in a row the task was running at.
func (e *Executor) crashes(task string) int {
	b, err := os.ReadFile(e.crashFile(task))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// markRunning records that the task's pods run, with their session ids.
func (e *Executor) markRunning(task string, sids []int) error {
	var b strings.Builder
	for _, id := range sids {
		b.WriteString(strconv.Itoa(id) + "\n")
	}
	return os.WriteFile(e.runMarker(task), []byte(b.String()), 0o600)
}

// markEnded records that the task's run ended under a live server.
func (e *Executor) markEnded(task string) {
	_ = os.Remove(e.runMarker(task))
	_ = os.Remove(e.crashFile(task))
}

// countCrashes turns the markers left by a server that died into counts.
// It returns the tasks now at or past the limit.
func (e *Executor) countCrashes() []string {
	markers, _ := filepath.Glob(filepath.Join(e.stateDir, "tasks", "*", "running"))
	var out []string
	for _, m := range markers {
		task := filepath.Base(filepath.Dir(m))
		n := e.crashes(task) + 1
		_ = os.WriteFile(e.crashFile(task), []byte(strconv.Itoa(n)+"\n"), 0o600)
		_ = os.Remove(m)
		if n >= e.crashLimit {
			out = append(out, task)
		}
	}
	return out
}

// crashLoopError is Start's refusal of a task that keeps taking the server
// down with it.
func (e *Executor) crashLoopError(task string) error {
	if n := e.crashes(task); n >= e.crashLimit {
		return fmt.Errorf("not restarted: the server died %d times in a row while this task ran (a task that kills the server would otherwise crash it in a loop); "+
			"fix the task and submit it again", n)
	}
	return nil
}
