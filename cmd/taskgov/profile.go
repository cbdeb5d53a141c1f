package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// CPU profiles on demand, for `taskgov loadtest --profile-dir`: the server,
// started with the hidden --cpu-profile-dir flag, starts a CPU profile on
// SIGUSR1 and ends it on the next (then writes the live heap to
// DIR/server-N.heap), so that the load tool can profile the
// server during each phase only (and itself the same way).

// profileDirFlag adds the server's hidden --cpu-profile-dir flag.
func profileDirFlag(c *cobra.Command, dir *string) {
	c.Flags().StringVar(dir, "cpu-profile-dir", "", "on SIGUSR1, start a CPU profile in DIR/server-N.prof; on the next, end it (for taskgov loadtest --profile-dir)")
	_ = c.Flags().MarkHidden("cpu-profile-dir")
}

// profileOnSignal toggles this process's CPU profile on each SIGUSR1.
func profileOnSignal(dir, prefix string) {
	c := make(chan os.Signal, 4)
	signal.Notify(c, syscall.SIGUSR1)
	go func() {
		var p profiler
		for range c {
			p.toggle(dir, prefix)
		}
	}()
}

// profiler writes numbered CPU profiles, one at a time.
type profiler struct {
	mu sync.Mutex
	n  int
	f  *os.File
}

// writeHeapProfile writes the live heap (after a collection) to path, for
// go tool pprof -sample_index=inuse_space; errors are ignored, as the
// profile is a diagnostic.
// It appears under its name once complete (waitForFile).
func writeHeapProfile(path string) {
	runtime.GC()
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil && cerr == nil {
		_ = os.Rename(path+".tmp", path)
	}
}

// signalProfile sends the server SIGUSR1 and waits (up to 30 s) until it
// has acted on it, that is until marker exists: the profile it starts, or
// the heap profile it writes when one ends. Two SIGUSR1 sent before the
// first is handled arrive as one (the kernel and Go's signal mask keep one
// pending signal of a kind), which on a loaded machine left the profile
// running and never written; TestProfileSignalsAreHandledInTurn.
func signalProfile(p *os.Process, marker string) {
	_ = p.Signal(syscall.SIGUSR1)
	waitForFile(marker, 30*time.Second)
}

// waitForFile waits up to d for path to exist.
func waitForFile(path string, d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
}

// running reports whether a profile is being written.
func (p *profiler) running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.f != nil
}

// toggle starts DIR/PREFIX-N.prof, or ends the profile running, and
// returns the file's path.
func (p *profiler) toggle(dir, prefix string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f != nil {
		pprof.StopCPUProfile()
		name := p.f.Name()
		p.f.Close()
		p.f = nil
		writeHeapProfile(strings.TrimSuffix(name, ".prof") + ".heap")
		return name
	}
	p.n++
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.prof", prefix, p.n)))
	if err != nil {
		return ""
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return ""
	}
	p.f = f
	return f.Name()
}
