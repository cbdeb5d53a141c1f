package main

import (
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// endlessSubmission is a submission body that never closes its one
// environment value, limit bytes long, counting what was read of it.
type endlessSubmission struct {
	limit int64
	n     atomic.Int64
}

const endlessHead = `{"name": "huge", "team": "alpha", "instanceType": "ml.p5.48xlarge", "command": ["true"], "env": {"A": "`

func (b *endlessSubmission) Read(p []byte) (int, error) {
	at := b.n.Load()
	if at >= b.limit {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), b.limit-at)]
	for i := range p {
		if at+int64(i) < int64(len(endlessHead)) {
			p[i] = endlessHead[at+int64(i)]
		} else {
			p[i] = 'a'
		}
	}
	b.n.Add(int64(len(p)))
	return len(p), nil
}

// peakRSS is the process's peak resident memory (VmHWM) in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc to read the server's memory from: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/PID/status")
	return 0
}

// TestHugeBodyIsRefused: a 1 GiB submission, declared by Content-Length or
// streamed chunked, to the real server: it answers 413 naming the limit
// after reading a few MiB at most, its memory does not grow with the body,
// nothing is stored, and the next submission is served.
func TestHugeBodyIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server process")
	}
	bin := buildBinary(t)
	s := faultServer(t, bin, t.TempDir())
	defer s.stop()
	before := peakRSS(t, s.cmd.Process.Pid)
	for _, chunked := range []bool{false, true} {
		body := &endlessSubmission{limit: 1 << 30}
		req, _ := http.NewRequest("POST", s.url+"/api/v1/tasks", body)
		req.ContentLength = 1 << 30
		if chunked {
			req.ContentLength = -1
		}
		req.Header.Set("Authorization", "Bearer "+s.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("chunked %v: no answer after %d bytes: %v", chunked, body.n.Load(), err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "at most 1 MiB") {
			t.Errorf("chunked %v: %d %s", chunked, resp.StatusCode, b)
		}
		t.Logf("chunked %v: %d, after the client sent %.1f MiB", chunked, resp.StatusCode, float64(body.n.Load())/(1<<20))
		if sent := body.n.Load(); sent > 64<<20 {
			t.Errorf("chunked %v: the client could send %d MiB before the refusal", chunked, sent>>20)
		}
	}
	grew := peakRSS(t, s.cmd.Process.Pid) - before
	t.Logf("the server's peak memory grew by %.1f MiB", float64(grew)/(1<<20))
	if grew > 128<<20 {
		t.Errorf("the server's peak memory grew by %d MiB over two 1 GiB bodies", grew>>20)
	}
	if code, _, b := s.raw("GET", "/api/v1/tasks/huge", nil, ""); code != http.StatusNotFound {
		t.Errorf("the refused body's task: %d %s", code, b)
	}
	if code, _, b := s.raw("POST", "/api/v1/tasks", job("after"), ""); code != 201 {
		t.Errorf("a submission after the huge bodies: %d %s", code, b)
	}
}
