package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShutdownLongAfterStart stops a server that has run longer than its
// shutdown timeout: the timeout counts from the stop, so the running task is
// still signalled and requeued cleanly, and the server exits without error.
func TestShutdownLongAfterStart(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	_ = os.WriteFile(cfg, []byte(cliCluster), 0o644)
	start := func() (string, context.CancelFunc, chan error) {
		ctx, cancel := context.WithCancel(context.Background())
		addrc, errc := make(chan string, 1), make(chan error, 1)
		logf, _ := os.OpenFile(filepath.Join(dir, "server.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		go func() {
			errc <- runServer(ctx, serverOptions{config: cfg, dataDir: dir, listen: "127.0.0.1:0", logTo: logf,
				sampleInterval: time.Second, shutdownTimeout: time.Second}, func(a string) { addrc <- a })
			logf.Close()
		}()
		select {
		case a := <-addrc:
			return a, cancel, errc
		case err := <-errc:
			t.Fatal(err)
		}
		return "", nil, nil
	}
	addr, stop, errc := start()
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	s := &serverProc{t: t, url: "http://" + addr, token: strings.TrimSpace(string(tok))}
	body := map[string]any{"name": "long", "team": "ml-engineers", "instanceType": "ml.p5.48xlarge", "command": []string{"sleep", "600"}}
	if code, err := s.call("POST", "/api/v1/tasks", body, nil); err != nil || code != 201 {
		t.Fatalf("submit: %d %v", code, err)
	}
	var task taskJSON
	waitFor(t, 10*time.Second, func() bool { _, _ = s.call("GET", "/api/v1/tasks/long", nil, &task); return task.State == "Running" })
	time.Sleep(1500 * time.Millisecond) // longer than the shutdown timeout
	stop()
	if err := <-errc; err != nil {
		t.Fatalf("shutdown after %s: %v", time.Second, err)
	}
	addr, stop, errc = start()
	defer func() { stop(); <-errc }()
	s.url = "http://" + addr
	var events struct {
		Events []struct{ Kind, Message string }
	}
	_, _ = s.call("GET", "/api/v1/tasks/long/events", nil, &events)
	for _, e := range events.Events {
		if strings.Contains(e.Message, "requeued at server shutdown") {
			return
		}
	}
	t.Fatalf("no clean requeue at shutdown among the task's events: %+v", events.Events)
}
