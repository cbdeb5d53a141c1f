package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

// The loadtest's event streams read as a client that keeps up would: each
// stream asks for gzip, as browsers do (--sse-encoding identity asks for
// plain text), reads into a buffer of its own, large enough for a sealed
// batch in one or two reads, and neither decodes nor scans what it reads:
// a scan of 140 bytes × 1,000 streams per submission cost the tool as much
// CPU as the kernel's copies, and decoding is the clients' work, on their
// own machines. It still checks that every stream received every event:
// the first stream decodes and parses every frame and checks that each of
// the phase's submissions' events came exactly once and that no events
// were dropped; every other stream must have received exactly as many
// bytes as the first, ending with the same bytes. The server writes the
// same sealed batches to every stream of a ring, so a stream that missed a
// batch, or was told it dropped events, differs. The streams open once the
// previous phase's events have been sealed (streamQuiet), so that every
// stream starts at the same batch.

// streamReadBuffer is each stream's read buffer (64 MiB for 1,000
// streams).
const streamReadBuffer = 64 << 10

// streamQuiet is how long the streams wait before they open: longer than
// the server's longest seal interval (250 ms), after the previous phase's
// last event.
const streamQuiet = 600 * time.Millisecond

// eventStreams are open event streams, read and counted.
type eventStreams struct {
	n      int
	expect int // Submitted events each stream must receive
	stop   context.CancelFunc
	wg     sync.WaitGroup
	bytes  atomic.Int64 // received so far, all streams
	counts []*streamCount
	ref    *refStream
}

// streamCount is what one stream received, and its last bytes.
type streamCount struct {
	mu   sync.Mutex
	n    int64
	tail []byte // the last tailBytes bytes received
	done int64  // when n last changed (Unix ns)
}

const tailBytes = 512

// refStream is the first stream's parse: each Submitted event's task.
type refStream struct {
	first int
	mu    sync.Mutex
	tasks map[string]int // times each task's Submitted event came
	other []string       // comment lines other than keepalives (e.g. dropped events)
	err   error          // decoding the stream failed
}

// openStreams opens n event streams with viewer tokens of team (as many
// tokens as the per-token cap needs), asking for encoding (gzip or
// identity); each must receive the events of tasks t<first> to
// t<first+expect-1>.
func openStreams(cl *client.Client, base string, n int, team, encoding string, first, expect int) (*eventStreams, error) {
	const perToken = 8 // the server's default --sse-per-token
	time.Sleep(streamQuiet)
	ctx, stop := context.WithCancel(context.Background())
	es := &eventStreams{stop: stop, expect: expect, ref: &refStream{first: first, tasks: map[string]int{}}}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
	var tok string
	for i := 0; i < n; i++ {
		if i%perToken == 0 {
			t, err := cl.CreateToken(ctx, "viewer", team, "loadtest stream")
			if err != nil {
				es.close()
				return nil, err
			}
			tok = t.Token
		}
		sc := client.New(base, tok)
		sc.HTTP = hc
		body, got, err := sc.EventsEncoded(ctx, encoding)
		if err == nil && got != strings.TrimSuffix(encoding, "identity") {
			body.Close()
			err = fmt.Errorf("the server sent encoding %q, asked for %s", got, encoding)
		}
		if err != nil {
			es.close()
			return nil, fmt.Errorf("event stream %d: %w", i+1, err)
		}
		c := &streamCount{}
		es.n++
		es.counts = append(es.counts, c)
		es.wg.Add(1)
		go func(body io.ReadCloser, first bool) {
			defer es.wg.Done()
			defer body.Close()
			var tee io.Reader = body
			if first {
				pr, pw := io.Pipe()
				tee = io.TeeReader(body, pw)
				defer pw.Close()
				es.wg.Add(1)
				go func() { defer es.wg.Done(); es.ref.parse(pr, encoding == "gzip") }()
			}
			es.read(tee, c)
		}(body, i == 0)
	}
	return es, nil
}

// read reads one stream until it ends, counting its bytes.
func (es *eventStreams) read(body io.Reader, c *streamCount) {
	buf := make([]byte, streamReadBuffer)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			es.bytes.Add(int64(n))
			c.add(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (c *streamCount) add(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += int64(len(b))
	c.tail = append(c.tail, b[max(0, len(b)-tailBytes):]...)
	c.tail = c.tail[max(0, len(c.tail)-tailBytes):]
	c.done = time.Now().UnixNano()
}

// phaseTask: name is a loadtest task numbered first or later.
func phaseTask(name string, first int) bool {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "t"))
	return err == nil && n >= first
}

func (c *streamCount) get() (int64, string, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n, string(c.tail), c.done
}

// parse decodes (if gz) and reads the first stream line by line.
func (r *refStream) parse(body io.Reader, gz bool) {
	defer func() { _, _ = io.Copy(io.Discard, body) }() // keep the tee flowing
	text := body
	if gz {
		zr, err := gzip.NewReader(body)
		if err != nil {
			r.mu.Lock()
			r.err = err
			r.mu.Unlock()
			return
		}
		text = zr
	}
	sc := bufio.NewScanner(text)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var ev model.Event
			if json.Unmarshal([]byte(data), &ev) == nil && ev.Kind == "Submitted" &&
				phaseTask(ev.Task, r.first) {
				r.mu.Lock()
				r.tasks[ev.Task]++
				r.mu.Unlock()
			}
		} else if strings.HasPrefix(line, ":") && line != ": keepalive" && line != ": taskgov event stream" {
			r.mu.Lock()
			r.other = append(r.other, line)
			r.mu.Unlock()
		}
	}
}

func (r *refStream) seen() (int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.tasks), append([]string(nil), r.other...)
}

// settle waits (up to 30 s) until the first stream has every submission's
// event and every stream as many bytes as the first, and reports how long
// after last (the last submission's answer) the slowest stream had them
// all. It fails if a stream missed or repeated an event, or was told it
// dropped events. The streams stay open.
func (es *eventStreams) settle(last time.Time) (string, error) {
	deadline := time.Now().Add(30 * time.Second)
	for !es.caughtUp() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	es.ref.mu.Lock()
	defer es.ref.mu.Unlock()
	if es.ref.err != nil {
		return "", fmt.Errorf("event stream 1: %w", es.ref.err)
	}
	if len(es.ref.other) > 0 {
		return "", fmt.Errorf("event stream 1 was told: %s", strings.Join(es.ref.other, "; "))
	}
	for t, k := range es.ref.tasks {
		if k != 1 {
			return "", fmt.Errorf("event stream 1 received task %s's Submitted event %d times", t, k)
		}
	}
	if len(es.ref.tasks) != es.expect {
		return "", fmt.Errorf("event stream 1 received %d tasks' Submitted events of the %d submitted", len(es.ref.tasks), es.expect)
	}
	n0, tail0, _ := es.counts[0].get()
	var latest int64
	for i, c := range es.counts {
		n, tail, done := c.get()
		if n != n0 || tail != tail0 {
			return "", fmt.Errorf("event stream %d received %d bytes, event stream 1 %d (or other last bytes): it missed or was told it dropped events, or a batch from before the phase reached only some streams", i+1, n, n0)
		}
		latest = max(latest, done)
	}
	if es.expect == 0 {
		return fmt.Sprintf("; none of the %d streams received a submission's event, as none should", es.n), nil
	}
	lag := max(time.Duration(latest-last.UnixNano()), 0)
	return fmt.Sprintf("; each of the %d streams received all %d events (%d bytes each), the slowest %.0f ms after the last answer",
		es.n, es.expect, n0, ms(lag)), nil
}

// caughtUp: the first stream has every event, and every stream as many
// bytes as the first.
func (es *eventStreams) caughtUp() bool {
	if got, _ := es.ref.seen(); got < es.expect {
		return false
	}
	n0, _, _ := es.counts[0].get()
	for _, c := range es.counts {
		if n, _, _ := c.get(); n != n0 {
			return false
		}
	}
	return true
}

func (es *eventStreams) close() { es.stop(); es.wg.Wait() }
