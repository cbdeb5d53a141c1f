package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStandbyWhoseLeaderIsGone: a standby forwards calls to the leader the
// lease names. When that leader is gone (its port closed) the call is
// refused with 503, Retry-After and a JSON error saying nothing changed and
// what to do; when the leader drops the connection without answering, 502
// says the call may have been applied. Before, both were a bare 502 with an
// empty body.
func TestStandbyWhoseLeaderIsGone(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	call := func(leader string) *httptest.ResponseRecorder {
		t.Helper()
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/api/v1/tasks", strings.NewReader(`{"name":"x"}`))
		serveStandby(w, r, leader, proxyTo(leader, "http://self", log), "")
		return w
	}
	errorOf := func(w *httptest.ResponseRecorder) map[string]string {
		t.Helper()
		var body struct{ Error map[string]string }
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Error["fix"] == "" || body.Error["message"] == "" {
			t.Fatalf("answer %d is not an error saying what to do: %q (%v)", w.Code, w.Body.String(), err)
		}
		return body.Error
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + l.Addr().String()
	l.Close()
	w := call(gone)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("a call forwarded to a gone leader: %d, Retry-After %q", w.Code, w.Header().Get("Retry-After"))
	}
	if e := errorOf(w); !strings.Contains(e["message"], "nothing was changed") || !strings.Contains(e["message"], gone) {
		t.Fatalf("the error does not name the leader and say nothing changed: %v", e)
	}

	// A leader that takes the call and drops the connection unanswered.
	drop, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer drop.Close()
	go func() {
		for {
			c, err := drop.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 4096)
			_, _ = c.Read(buf)
			c.Close()
		}
	}()
	w = call("http://" + drop.Addr().String())
	if w.Code != http.StatusBadGateway {
		t.Fatalf("a call the leader dropped: %d", w.Code)
	}
	if e := errorOf(w); !strings.Contains(e["message"], "may have been applied") {
		t.Fatalf("the error does not say the call may have been applied: %v", e)
	}
}
