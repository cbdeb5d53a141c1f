package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
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
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	// The server picks a free port as it binds (a port picked here, released
	// and then bound is a race a parallel run can win) and says which on
	// stderr.
	cmd := exec.Command(self, append([]string{"server", "--config", cfg, "--data-dir", dir, "--listen", "127.0.0.1:0"}, args...)...)
	said := &listenWatch{found: make(chan string, 1)}
	cmd.Stderr = said
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &childServer{dir: dir, cmd: cmd}
	var addr string
	select {
	case addr = <-said.found:
	case <-time.After(20 * time.Second):
		s.stop()
		return nil, fmt.Errorf("the server did not say where it listens within 20 s: %s", said.text())
	}
	s.base = "http://" + addr
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

// listeningPrefix starts the line a server writes to stderr once it serves
// (server.go).
const listeningPrefix = "taskgov server listening on "

// listenWatch is a server's stderr: it sends the HOST:PORT of the line that
// says where the server listens on found, once, and keeps the first 64 KiB
// written before it for an error; the rest is discarded.
type listenWatch struct {
	mu    sync.Mutex
	buf   []byte
	done  bool
	found chan string
}

func (w *listenWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return len(p), nil
	}
	w.buf = append(w.buf, p[:min(len(p), 64<<10-min(len(w.buf), 64<<10))]...)
	if i := bytes.Index(w.buf, []byte(listeningPrefix)); i >= 0 {
		rest := w.buf[i+len(listeningPrefix):]
		if j := bytes.IndexAny(rest, " \n"); j >= 0 {
			w.found <- string(rest[:j])
			w.done, w.buf = true, nil
		}
	}
	return len(p), nil
}

func (w *listenWatch) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimSpace(string(w.buf))
}
