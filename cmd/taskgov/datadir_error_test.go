package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestServerRefusesAnUnusableDataDir: a --data-dir that cannot be made
// (here a path through a file; a read-only mount takes the same path) is
// refused with exit 2 naming the flag and the fix, before anything
// starts. Before, it was exit 1 with only "mkdir ...: not a directory"
// (and "chmod DIR: read-only file system" on a read-only mount).
func TestServerRefusesAnUnusableDataDir(t *testing.T) {
	old := syscall.Umask(0o022) // the server command sets the process's umask
	defer syscall.Umask(old)
	file := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := cli(t, "server", "--data-dir", filepath.Join(file, "data"), "--listen", "127.0.0.1:0")
	if code != 2 || !strings.Contains(errs, "--data-dir") || !strings.Contains(errs, "a part of the path is a file") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}
