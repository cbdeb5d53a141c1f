package httpapi

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
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

// pendingCluster keeps every task of team load pending (no quota, nothing
// to borrow), so a submission's only event is Submitted.
const pendingCluster = `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]
teams: [{name: load, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 0}]}, {name: watch}]
`

// TestStreamDeliversEveryEventWhole: over HTTP/1.1 a stream is not
// chunked (it ends with the connection); it is gzip-compressed when the
// client accepts gzip (Go's client asks and decodes by itself; an explicit
// Accept-Encoding: gzip gets the raw gzip stream; identity gets plain
// text). Each of three such streams receives each of 300 submissions'
// events exactly once, every frame whole, across several sealed batches.
func TestStreamDeliversEveryEventWhole(t *testing.T) {
	e := newEnv(t, pendingCluster)
	api := e.srv.Config.Handler.(*Server)
	tok := e.token(model.RoleMember, "load")
	type stream struct {
		name, accept, encoding string // Accept-Encoding sent; Content-Encoding wanted
		body                   io.Reader
	}
	streams := []*stream{{name: "Go client (gzip, decoded)"}, {name: "gzip", accept: "gzip", encoding: "gzip"},
		{name: "identity", accept: "identity"}}
	for _, st := range streams {
		req, _ := http.NewRequest("GET", e.url+"/api/v1/events", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		if st.accept != "" {
			req.Header.Set("Accept-Encoding", st.accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if len(resp.TransferEncoding) != 0 || !resp.Close || resp.ContentLength != -1 {
			t.Fatalf("%s: transfer encoding %v, close %v, length %d: want an unchunked body that ends with the connection",
				st.name, resp.TransferEncoding, resp.Close, resp.ContentLength)
		}
		if ct, ce := resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding"); ct != "text/event-stream" || ce != st.encoding {
			t.Fatalf("%s: content type %q, encoding %q (want %q)", st.name, ct, ce, st.encoding)
		}
		if st.accept == "" && !resp.Uncompressed {
			t.Fatalf("%s: Go's client did not get a compressed stream", st.name)
		}
		st.body = resp.Body
		if st.encoding == "gzip" {
			if st.body, err = gzip.NewReader(resp.Body); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
		}
	}
	first := api.hub.ringFor(principal{Role: model.RoleMember, Team: "load"}).head()

	// Three waves with pauses longer than the seal interval: at least
	// three batches.
	const waves, perWave = 3, 100
	for w := 0; w < waves; w++ {
		var wg sync.WaitGroup
		errs := make(chan error, perWave)
		for i := 0; i < perWave; i++ {
			wg.Add(1)
			go func(name string) {
				defer wg.Done()
				b, _ := json.Marshal(model.TaskSpec{Name: name, Team: "load", InstanceType: "ml.p5.48xlarge",
					PerNode: model.Request{GPUs: 1}, Command: []string{"true"}})
				req, _ := http.NewRequest("POST", e.url+"/api/v1/tasks", bytes.NewReader(b))
				req.Header.Set("Authorization", "Bearer "+e.admin)
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusCreated {
						err = fmt.Errorf("submit %s: status %d", name, resp.StatusCode)
					}
				}
				errs <- err
			}(fmt.Sprintf("w%d-%d", w, i))
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(2 * sseFlushEvery)
	}
	for _, st := range streams {
		readEvery(t, st.name, st.body, waves*perWave)
	}
	if got := api.hub.ringFor(principal{Role: model.RoleMember, Team: "load"}).head().batch - first.batch; got < waves {
		t.Errorf("the events came in %d batches, want at least %d", got, waves)
	}
}

// readEvery reads body until it has n tasks' Submitted events, failing on
// a torn frame, an unexpected line or an event that came twice.
func readEvery(t *testing.T, name string, body io.Reader, n int) {
	t.Helper()
	seen := map[string]int{}
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	timeout := time.After(20 * time.Second)
	event := ""
	for len(seen) < n {
		var l string
		select {
		case l = <-lines:
		case <-timeout:
			t.Fatalf("%s: %d of %d events after 20 s", name, len(seen), n)
		}
		switch {
		case strings.HasPrefix(l, "event: "):
			event = strings.TrimPrefix(l, "event: ")
		case strings.HasPrefix(l, "data: "):
			var ev model.Event
			if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &ev); err != nil || ev.Kind != event {
				t.Fatalf("%s: a torn or mismatched frame (event %q): %q: %v", name, event, l, err)
			}
			if ev.Kind == "Submitted" {
				seen[ev.Task]++
			}
		case l == "" || l == ": keepalive" || l == ": taskgov event stream":
		default:
			t.Fatalf("%s: unexpected line %q", name, l)
		}
	}
	for task, k := range seen {
		if k != 1 {
			t.Errorf("%s: %s's Submitted event came %d times", name, task, k)
		}
	}
}

// TestSlowStreamIsCutOff: a stream whose reader stops reading is closed
// once a write round has waited the write timeout, and its slot is freed.
func TestSlowStreamIsCutOff(t *testing.T) {
	e := newEnvWith(t, pendingCluster, envOptions{server: func(s *Server) { s.streamWrite = 300 * time.Millisecond }})
	api := e.srv.Config.Handler.(*Server)
	tok := e.token(model.RoleViewer, "")
	// A small receive buffer, so the kernel stops taking the server's
	// writes soon.
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", tok)
	head := make([]byte, 12)
	if _, err := io.ReadFull(conn, head); err != nil || string(head) != "HTTP/1.1 200" {
		t.Fatalf("stream answer %q: %v", head, err)
	}
	open := func() int { api.streams.mu.Lock(); defer api.streams.mu.Unlock(); return api.streams.total }
	if open() != 1 {
		t.Fatalf("%d streams open, want 1", open())
	}
	// Stop reading; the hub announces 256 KiB frames (each a batch of its
	// own) until the stream is cut off.
	frame := append(append([]byte(": "), bytes.Repeat([]byte("x"), 256<<10)...), "\n\n"...)
	deadline := time.Now().Add(20 * time.Second)
	for sent := 0; open() > 0; sent++ {
		if time.Now().After(deadline) {
			t.Fatalf("the stream is still open after %d MiB were sent to a reader that reads nothing", min(sent, 100)/4)
		}
		if sent < 100 { // 25 MiB: more than the socket buffers hold
			api.hub.announce(frame, time.Now())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The server closed the connection: what the kernel buffered, then
	// the end.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, conn); err != nil && !isReset(err) {
		t.Fatalf("after the cut-off, reading the connection: %v", err)
	}
}

func isReset(err error) bool { return strings.Contains(err.Error(), "reset by peer") }

// TestStreamOverHTTP2: over HTTP/2 (TLS) the stream is framed by the
// protocol (no Transfer-Encoding or Connection header goes out), still
// compressed for a client that accepts gzip, and its events arrive whole.
func TestStreamOverHTTP2(t *testing.T) {
	e := newEnv(t, pendingCluster)
	ts := httptest.NewUnstartedServer(e.srv.Config.Handler)
	ts.EnableHTTP2 = true
	ts.StartTLS()
	defer ts.Close()
	req, _ := http.NewRequest("GET", ts.URL+"/api/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+e.token(model.RoleMember, "load"))
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 || !resp.Uncompressed || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("protocol %s, decoded gzip %v, content type %q", resp.Proto, resp.Uncompressed, resp.Header.Get("Content-Type"))
	}
	for i := 0; i < 20; i++ {
		e.mustDo("POST", "/api/v1/tasks", e.admin, model.TaskSpec{Name: fmt.Sprintf("h2-%d", i), Team: "load",
			InstanceType: "ml.p5.48xlarge", PerNode: model.Request{GPUs: 1}, Command: []string{"true"}}, http.StatusCreated, nil)
	}
	readEvery(t, "HTTP/2", resp.Body, 20)
}
