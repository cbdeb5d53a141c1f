package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestProfileSignalsAreHandledInTurn: the load tool's start and end of a
// server profile are two SIGUSR1s; sent while the server does not run (a
// loaded machine), they used to arrive as one, leaving the profile running
// and unwritten (TestLoadtestStores: "no CPU profile of the postgres-temp
// run"). signalProfile waits until the server has acted on each.
func TestProfileSignalsAreHandledInTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server process")
	}
	bin := buildBinary(t)
	dir, prof := t.TempDir(), t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	_ = os.WriteFile(cfg, []byte("nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]\n"), 0o644)
	s := startServer(t, bin, dir, anyPort, "--config", cfg, "--cpu-profile-dir", prof)
	defer func() { _ = s.cmd.Process.Kill(); _ = s.cmd.Wait() }()

	// The server does not run for a while, as on a loaded machine.
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		_ = s.cmd.Process.Signal(syscall.SIGCONT)
	}()
	signalProfile(s.cmd.Process, filepath.Join(prof, "server-1.prof"))
	signalProfile(s.cmd.Process, filepath.Join(prof, "server-1.heap"))
	for _, f := range []string{"server-1.prof", "server-1.heap"} {
		if fi, err := os.Stat(filepath.Join(prof, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v (size %v)", f, err, fi)
		}
	}
}
