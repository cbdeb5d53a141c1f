package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
)

// CPU profiles on demand, for `taskgov loadtest --profile-dir`: the server,
// started with the hidden --cpu-profile-dir flag, starts a CPU profile on
// SIGUSR1 and ends it on the next, so that the load tool can profile the
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
