package client

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// SubmitKeyed tries again, with the same key, after a 503 (waiting its
// Retry-After) and after a dropped connection, and stops at a refusal
// (409) or after SubmitTries. The server here plays only the answers (a
// dropped one is sent again once by Go's transport or by SubmitKeyed: 3
// sends either way).
func TestSubmitKeyedTriesAgain(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	var answers []func(w http.ResponseWriter)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		a := answers[0]
		answers = answers[1:]
		mu.Unlock()
		a(w)
	}))
	defer srv.Close()
	unavailable := func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error": {"code": "unavailable", "message": "the store cannot be written"}}`))
	}
	dropped := func(w http.ResponseWriter) {
		c, _, _ := w.(http.Hijacker).Hijack()
		c.Close()
	}
	created := func(w http.ResponseWriter) {
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"name": "job", "state": "Pending"})
	}
	conflict := func(w http.ResponseWriter) {
		w.WriteHeader(http.StatusConflict)
		_, _ = w.Write([]byte(`{"error": {"code": "conflict", "message": "task \"job\" exists"}}`))
	}
	c := New(srv.URL, "tok")
	SubmitWait = 10 * time.Millisecond
	t.Cleanup(func() { SubmitWait = 500 * time.Millisecond })
	run := func(name string, as ...func(http.ResponseWriter)) (int, time.Duration, error) {
		mu.Lock()
		keys, answers = nil, as
		mu.Unlock()
		start := time.Now()
		_, err := c.SubmitKeyed(context.Background(), model.TaskSpec{Name: "job", Team: "a"}, "k-"+name)
		mu.Lock()
		defer mu.Unlock()
		for _, k := range keys {
			if k != "k-"+name {
				t.Errorf("%s: tries sent keys %q, want k-%s each time", name, keys, name)
			}
		}
		return len(keys), time.Since(start), err
	}
	if n, took, err := run("lost", unavailable, dropped, created); err != nil || n != 3 || took < time.Second {
		t.Errorf("503 then dropped then 201: %d tries in %v, err %v; want 3 tries, the Retry-After's second waited, no error", n, took, err)
	}
	if n, _, err := run("refused", conflict, created); err == nil || n != 1 {
		t.Errorf("409: %d tries, err %v; want 1 try and the refusal", n, err)
	}
	// Go's transport itself sends a keyed request again once when a reused
	// connection drops: up to two sends per try.
	drops := []func(http.ResponseWriter){}
	for range 2 * SubmitTries {
		drops = append(drops, dropped)
	}
	if n, _, err := run("down", drops...); err == nil || n < SubmitTries || n > 2*SubmitTries {
		t.Errorf("dropped every time: %d sends, err %v; want %d tries (%d to %d sends) and the error", n, err, SubmitTries, SubmitTries, 2*SubmitTries)
	}
}

// A refused connection (no server listens at the address) was tried
// again for 3.5 s (0.5 + 1 + 2) with nothing on the screen, then failed;
// nothing was sent, so no answer was lost: it fails at once, saying it
// cannot reach the server. A real port, closed.
func TestSubmitKeyedRefusedConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	start := time.Now()
	_, err = New("http://"+addr, "tok").SubmitKeyed(context.Background(), model.TaskSpec{Name: "job", Team: "a"}, "k")
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "cannot reach the taskgov server at http://"+addr) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("refused connection: %v", err)
	}
	if took >= SubmitWait {
		t.Fatalf("refused connection: failed after %v; a second try waits %v first", took, SubmitWait)
	}
}
