package local

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// dataDirVar marks every pod process (and, by inheritance, its children)
// with the executor's state directory, so strays can be found after a
// crash. It is reserved: a task's env cannot set it.
const dataDirVar = "TASKGOV_DATA_DIR"

// KillStrays kills every process on this host left by a server that
// crashed: those whose environment carries this executor's marker, and
// those in the session of a pod recorded as running (which catches a pod's
// child that cleared its environment). A pod's direct child dies with the
// server (Pdeathsig), but its own children would not. It returns how many
// it killed.
func (e *Executor) KillStrays() int {
	marker := []byte(dataDirVar + "=" + e.stateDir + "\x00")
	sessions := e.recordedSessions()
	self := os.Getpid()
	procs, _ := filepath.Glob("/proc/[0-9]*")
	killed := 0
	var victims []string
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil || pid == self {
			continue
		}
		ours := false
		if sid, ok := procSID(p); ok && sessions[sid] {
			ours = true
		} else if env, err := os.ReadFile(filepath.Join(p, "environ")); err == nil &&
			bytes.Contains(append([]byte{0}, env...), append([]byte{0}, marker...)) {
			ours = true
		}
		if ours && syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
			victims = append(victims, p)
		}
	}
	// Wait (briefly) until they are gone, so that nothing of the old run
	// still runs when the tasks are requeued.
	deadline := time.Now().Add(2 * time.Second)
	for _, p := range victims {
		for running(p) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	return killed
}

// running reports whether the process at /proc/PID exists and is not a
// zombie.
func running(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// Recover is what a starting server calls before it requeues anything: it
// kills strays and counts, for the crash-loop guard, the tasks that were
// running when the previous server died. It returns how many processes it
// killed.
func (e *Executor) Recover() int {
	n := e.KillStrays()
	e.countCrashes()
	return n
}

// recordedSessions reads the session ids (each pod leads its own) from the
// run markers of tasks that were running when the server died.
func (e *Executor) recordedSessions() map[int]bool {
	out := map[int]bool{}
	markers, _ := filepath.Glob(filepath.Join(e.stateDir, "tasks", "*", "running"))
	for _, m := range markers {
		b, _ := os.ReadFile(m)
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil && n > 1 {
				out[n] = true
			}
		}
	}
	return out
}

// procSID reads the session id of the process at /proc/PID from its stat
// line (the sixth field, after the parenthesised command name).
func procSID(dir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 {
		return 0, false
	}
	n, err := strconv.Atoi(f[3])
	return n, err == nil
}
