package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/taskgov/taskgov/internal/sqlite"
)

// TestServerSaysWhyItsDatabaseCannotOpen: a server restarted on a
// taskgov.db it cannot use exits 1 with the file's path, the cause in
// words and what to do, not SQLite's bare "migrating: file is not a
// database (26)" (before). The file is left as it was.
func TestServerSaysWhyItsDatabaseCannotOpen(t *testing.T) {
	old := syscall.Umask(0o022) // the server command sets the process's umask
	defer syscall.Umask(old)
	start := func(t *testing.T, dir string) string {
		t.Helper()
		_, errs, code := cli(t, "server", "--data-dir", dir, "--listen", "127.0.0.1:0")
		if code != 1 {
			t.Fatalf("exit %d, want 1: %s", code, errs)
		}
		if !strings.Contains(errs, filepath.Join(dir, "taskgov.db")) {
			t.Fatalf("the error does not name the database file: %s", errs)
		}
		return errs
	}
	t.Run("NotADatabase", func(t *testing.T) {
		dir := t.TempDir()
		garbage := bytes.Repeat([]byte("garbage!"), 1024)
		db := filepath.Join(dir, "taskgov.db")
		if err := os.WriteFile(db, garbage, 0o600); err != nil {
			t.Fatal(err)
		}
		errs := start(t, dir)
		if !strings.Contains(errs, "not a valid taskgov database") || !strings.Contains(errs, "backup") {
			t.Fatalf("the error does not say the file is damaged and to restore it: %s", errs)
		}
		if b, _ := os.ReadFile(db); !bytes.Equal(b, garbage) {
			t.Fatal("the damaged file was changed")
		}
	})
	t.Run("Directory", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "taskgov.db"), 0o700); err != nil {
			t.Fatal(err)
		}
		if errs := start(t, dir); !strings.Contains(errs, "is a directory") {
			t.Fatalf("the error does not say the path is a directory: %s", errs)
		}
	})
	t.Run("DiskFull", func(t *testing.T) {
		dir := t.TempDir()
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
			t.Skipf("cannot mount a small tmpfs to fill (needs root or CAP_SYS_ADMIN): %v %s", err, out)
		}
		t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
		data := filepath.Join(dir, "data")
		if err := os.Mkdir(data, 0o700); err != nil {
			t.Fatal(err)
		}
		st, err := sqlite.Open(filepath.Join(data, "taskgov.db")) // a database from an earlier run
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		f, err := os.Create(filepath.Join(dir, "filler"))
		if err != nil {
			t.Fatal(err)
		}
		for chunk := make([]byte, 64<<10); ; {
			if _, err := f.Write(chunk); err != nil {
				break
			}
		}
		f.Close()
		if errs := start(t, data); !strings.Contains(errs, "is full") || !strings.Contains(errs, "free space") {
			t.Fatalf("the error does not say the disk is full and to free space: %s", errs)
		}
	})
}
