package main

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// childServer is a `taskgov server` process on a fresh data directory and a
// free loopback port, for the benchmark commands, so that what they measure
// is a separate server process.
type childServer struct {
	base, token, dir string
	cmd              *exec.Cmd
}

// startChildServer starts a server with the given cluster file contents and
// waits until it is ready.
func startChildServer(prefix string, cluster []byte, args ...string) (*childServer, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, cluster, 0o644); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, append([]string{"server", "--config", cfg, "--data-dir", dir, "--listen", addr}, args...)...)
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &childServer{base: "http://" + addr, dir: dir, cmd: cmd}
	if s.token, err = waitReady(s.base, dir); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// stop shuts the server down cleanly and removes its data.
func (s *childServer) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
	_ = os.RemoveAll(s.dir)
	_ = os.RemoveAll(s.dir + "-tasks") // the task directories, when tasks run as other users
}
