package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSecondServerOnADataDirIsRefused: a server holds its data directory;
// a second one on it is refused (exit 2, naming the holder's pid) and
// leaves the first serving; once the first stops, the directory is free.
func TestSecondServerOnADataDirIsRefused(t *testing.T) {
	base := t.TempDir()
	dir, cfg := filepath.Join(base, "data"), filepath.Join(base, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(isolationCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	start := func() (context.CancelFunc, chan error) {
		ctx, cancel := context.WithCancel(context.Background())
		addrc, errc := make(chan string, 1), make(chan error, 1)
		logf, err := os.CreateTemp(t.TempDir(), "server-*.log")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			errc <- runServer(ctx, serverOptions{config: cfg, dataDir: dir, listen: "127.0.0.1:0", logTo: logf, sampleInterval: time.Second},
				func(a string) { addrc <- a })
		}()
		select {
		case <-addrc:
		case err := <-errc:
			t.Fatal(err)
		}
		return cancel, errc
	}
	cancel, errc := start()
	_, errs, code := cli(t, "server", "--data-dir", dir, "--listen", "127.0.0.1:0")
	if want := fmt.Sprintf("is in use by another taskgov server (pid %d)", os.Getpid()); code != 2 || !strings.Contains(errs, "--data-dir") || !strings.Contains(errs, want) {
		t.Fatalf("second server: exit %d: %s (want exit 2 and %q)", code, errs, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "admin.token")); err != nil {
		t.Fatalf("the first server's files: %v", err)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	cancel, errc = start() // the first's stop released the directory
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}
