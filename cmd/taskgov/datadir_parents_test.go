package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestServerMakesDataDirParentsPassable: as root with the default
// --task-user (tasks run as other users), a --data-dir whose parents do
// not exist yet starts: the server makes the parents passable (0755 less
// the umask) and only the data directory 0700. Before, the parents were
// made under the server's 0077 umask, and the start was refused because
// tasks could not pass a directory the server had just made.
func TestServerMakesDataDirParentsPassable(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server process")
	}
	if os.Geteuid() != 0 {
		t.Skip("tasks run as other users only when the server is root")
	}
	// The child inherits this process's umask, which an in-process server
	// of an earlier test set to 0077; a user's shell has 0022.
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	bin := buildBinary(t)
	base := t.TempDir()
	if err := os.Chmod(filepath.Dir(base), 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(base, "cluster.yaml")
	_ = os.WriteFile(cfg, []byte(isolationCluster), 0o644)
	data := filepath.Join(base, "new", "parent", "data")
	logf, err := os.Create(filepath.Join(base, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(bin, "server", "--config", cfg, "--data-dir", data, "--listen", anyPort, "--task-user", "auto")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); <-exited }()
	addr := boundAddr(t, logf.Name(), 0, 20*time.Second)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("the server refused to start:\n%s", b)
		default:
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("the server was not ready in 20 s:\n%s", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, dir := range []string{filepath.Join(base, "new"), filepath.Dir(data)} {
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o001 == 0 {
			t.Errorf("%s: %v; others cannot pass it", dir, fi.Mode())
		}
	}
	if fi, err := os.Stat(data); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v %v; want mode 0700", data, fi, err)
	}
}
