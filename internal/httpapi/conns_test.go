package httpapi

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// hardenedServer serves h on loopback with limits l.
func hardenedServer(t *testing.T, l ConnLimits, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	Harden(srv, l)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// closedWithin reports whether the server closes c within d.
func closedWithin(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	return err == nil // EOF: closed by the server; a timeout is an error
}

// TestConnectionLimits (issue 14, finding 4): idle connections are closed
// after the idle timeout, a request whose body trickles in is cut off at
// the read timeout, and beyond the connection cap a new client is still
// served, at the cost of the longest-silent connection.
func TestConnectionLimits(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "ok")
	})
	l := ConnLimits{ReadHeader: 500 * time.Millisecond, Read: time.Second, Write: time.Second, Idle: 500 * time.Millisecond, MaxConns: 20}
	addr := hardenedServer(t, l, ok)

	// Idle keep-alive: one request, then silence.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("first request: %v", err)
	}
	if !closedWithin(c, 3*time.Second) {
		t.Error("an idle keep-alive connection stayed open past the idle timeout")
	}

	// Slow body: headers promise 100 bytes, then one byte now and then.
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	_, _ = io.WriteString(slow, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
	start := time.Now()
	go func() {
		for i := 0; i < 10; i++ {
			if _, err := slow.Write([]byte("a")); err != nil {
				return
			}
			time.Sleep(400 * time.Millisecond)
		}
	}()
	if !closedWithin(slow, 5*time.Second) || time.Since(start) > 3*time.Second {
		t.Errorf("a trickling body held its connection %v; want it cut at the read timeout (%v)", time.Since(start), l.Read)
	}

	// Over the cap: 30 connections that send nothing, then a real client.
	var silent []net.Conn
	for i := 0; i < 30; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, c)
		time.Sleep(2 * time.Millisecond)
	}
	defer func() {
		for _, c := range silent {
			c.Close()
		}
	}()
	client := &http.Client{Timeout: 2 * time.Second}
	t0 := time.Now()
	resp, err := client.Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("a client beyond the connection cap: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "ok") || time.Since(t0) > time.Second {
		t.Errorf("a client beyond the cap: %q after %v", b, time.Since(t0))
	}
	if !closedWithin(silent[0], time.Second) {
		t.Error("the oldest silent connection was not closed for the new one")
	}
}

// TestChangeAnsweredBeforeWriteDeadline: a change whose handler waits on its
// context (the engine waiting for a hung database) is answered before the
// write deadline would close the connection unanswered; a read is left to
// the write deadline alone.
func TestChangeAnsweredBeforeWriteDeadline(t *testing.T) {
	waits := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "may have been stored")
	})
	l := ConnLimits{ReadHeader: time.Second, Read: time.Second, Write: 800 * time.Millisecond, Idle: time.Second, MaxConns: 20}
	addr := hardenedServer(t, l, waits)
	hc := &http.Client{Timeout: 5 * time.Second}
	start := time.Now()
	resp, err := hc.Post("http://"+addr+"/api/v1/tasks", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("a change whose answer waits: %v after %s (cut off by the write deadline?)", err, time.Since(start))
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || string(body) != "may have been stored" {
		t.Fatalf("a change whose answer waits: %d %q", resp.StatusCode, body)
	}
	if took := time.Since(start); took < 550*time.Millisecond {
		t.Errorf("answered after %s, before three quarters of the 800 ms write deadline", took)
	}
	noDeadline := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Context().Deadline(); ok {
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	addr = hardenedServer(t, l, noDeadline)
	if resp, err := hc.Get("http://" + addr + "/api/v1/tasks"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("a read got a request deadline: %v %v", resp, err)
	}
}
