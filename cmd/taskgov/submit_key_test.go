package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"sync"
	"testing"

	"github.com/taskgov/taskgov/internal/client"
)

// lossyProxy forwards requests to a real server and, for the first
// submission with each Idempotency-Key (or without one), lets the server
// store the task but closes the connection instead of answering: the
// answer is lost, as on a timeout or a dropped connection.
type lossyProxy struct {
	mu   sync.Mutex
	keys []string // every submission's key, in order ("" for none)
	lost map[string]bool
}

func (p *lossyProxy) start(t *testing.T, target string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, target+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if r.Method == "POST" && r.URL.Path == "/api/v1/tasks" {
			key := r.Header.Get("Idempotency-Key")
			p.mu.Lock()
			p.keys = append(p.keys, key)
			drop := !p.lost[key] && resp.StatusCode == http.StatusCreated
			p.lost[key] = true
			p.mu.Unlock()
			if drop { // stored; the answer never reaches the client
				c, _, _ := w.(http.Hijacker).Hijack()
				c.Close()
				return
			}
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestSubmitAnswerLost: the CLIs' submissions carry an Idempotency-Key
// made once per command, and a submission whose answer is lost after the
// server stored it is tried again with the same key: the command succeeds
// with one task, not a second (before, no key was sent and the command
// failed "cannot reach", with the task stored all the same, and running
// it again got 409). Each command makes its own key. taskgov start-job
// (the hyperpod shim's too) and hyp create share the path.
func TestSubmitAnswerLost(t *testing.T) {
	cliServer(t)
	server := os.Getenv("TASKGOV_SERVER")
	p := &lossyProxy{lost: map[string]bool{}}
	t.Setenv("TASKGOV_SERVER", p.start(t, server))
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	check := func(job string, want int) {
		t.Helper()
		p.mu.Lock()
		keys := append([]string(nil), p.keys...)
		p.mu.Unlock()
		if len(keys) != want || !hex32.MatchString(keys[want-1]) || keys[want-2] != keys[want-1] {
			t.Fatalf("%s: submissions' keys %q: want the lost one tried again with the same key", job, keys)
		}
		tasks, err := client.New(server, os.Getenv("TASKGOV_TOKEN")).Tasks(context.Background(), client.TaskQuery{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tk := range tasks {
			if tk.Name == job {
				n++
				if tk.IdempotencyKey != keys[want-1] {
					t.Errorf("%s: stored with key %q, sent %q", job, tk.IdempotencyKey, keys[want-1])
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d tasks, want 1", job, n)
		}
	}
	mustCLI(t, "start-job", "--job-name", "once", "-n", "ml-engineers", "--command", "sleep 30")
	check("once", 2)
	mustCLI(t, "start-job", "--job-name", "twice", "-n", "ml-engineers", "--command", "sleep 30")
	check("twice", 4)
	if p.keys[0] == p.keys[2] {
		t.Errorf("two commands sent the same key %s", p.keys[0])
	}
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	mustCLI(t, "create", "hyp-pytorch-job", "--job-name", "hyp-once", "-n", "hyperpod-ns-ml-engineers", "--image", "i", "--command", "[true]", "--node-count", "1")
	hypMode = false
	check("hyp-once", 6)
}
