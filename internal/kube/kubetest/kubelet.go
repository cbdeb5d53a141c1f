package kubetest

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Kubelet plays the one part of a kubelet the API server calls for pod
// logs (GET /containerLogs/NAMESPACE/POD/CONTAINER, which the API server
// proxies pods/log to): it serves the logs a test gives it and counts what
// it sent. Like the kubelet it stamps each line with the time the runtime
// read it, and honours tailLines (the last lines; a final newline starts
// none), sinceTime (lines stamped at or after it), timestamps (each line
// after its stamp in RFC 3339 with nanoseconds, fixed width, and a space)
// and limitBytes (at most that many bytes of what it would send, stamps
// included), in that order. The API server does not check a kubelet's
// certificate unless told to (--kubelet-certificate-authority), so a test
// TLS server does.
type Kubelet struct {
	srv   *httptest.Server
	mu    sync.Mutex
	logs  map[string]*podLog // by pod name
	stall map[string]bool    // pods whose log stops after its first bytes
	sent  int64
	asks  []string
	open  int // responses being sent
}

// podLog is a container's log and the stamp of each of its lines.
type podLog struct {
	data   []byte
	starts []int       // where each line starts
	stamps []time.Time // when each line was written
}

// LogEpoch is the stamp of a log's first line (SetLog).
var LogEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// StartKubelet serves pod logs until the test ends.
func StartKubelet(t testing.TB) *Kubelet {
	k := &Kubelet{logs: map[string]*podLog{}, stall: map[string]bool{}}
	k.srv = httptest.NewTLSServer(http.HandlerFunc(k.serve))
	t.Cleanup(k.srv.Close)
	return k
}

// SetLog makes log the log of every container of the pod named pod, its
// lines stamped a millisecond apart from LogEpoch.
func (k *Kubelet) SetLog(pod string, log []byte) {
	k.mu.Lock()
	delete(k.logs, pod)
	k.mu.Unlock()
	k.AppendLog(pod, log, time.Millisecond)
}

// AppendLog adds log to the pod's log, as a container writing it would:
// each line it starts is stamped step after the line before (step 0: at
// the same time, as a burst the runtime reads at once); the first line of
// a log is stamped LogEpoch, and a line the log ended in the middle of
// goes on under its own stamp.
func (k *Kubelet) AppendLog(pod string, log []byte, step time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	l := k.logs[pod]
	if l == nil {
		l = &podLog{}
		k.logs[pod] = l
	}
	for i := 0; i < len(log); {
		// i starts a line unless it goes on with the log's unfinished last line
		if i > 0 || len(l.data) == 0 || l.data[len(l.data)-1] == '\n' {
			stamp := LogEpoch
			if n := len(l.stamps); n > 0 {
				stamp = l.stamps[n-1].Add(step)
			}
			l.starts = append(l.starts, len(l.data)+i)
			l.stamps = append(l.stamps, stamp)
		}
		j := bytes.IndexByte(log[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	l.data = append(l.data, log...)
}

// Stall makes the pod's log, once its first bytes are sent, wait for more
// until the reader goes away, as a log followed while its container is
// quiet does.
func (k *Kubelet) Stall(pod string) {
	k.mu.Lock()
	k.stall[pod] = true
	k.mu.Unlock()
}

// Open says how many log responses are being sent: a reader that went
// away is one no longer.
func (k *Kubelet) Open() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.open
}

// Took returns what was sent and asked for since the last call, and
// starts counting again.
func (k *Kubelet) Took() (sent int64, asks []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	sent, asks = k.sent, k.asks
	k.sent, k.asks = 0, nil
	return sent, asks
}

// Serve makes n's kubelet endpoint this one (127.0.0.1 and its port).
func (k *Kubelet) Serve(t testing.TB, n *corev1.Node) *corev1.Node {
	t.Helper()
	_, port, err := net.SplitHostPort(strings.TrimPrefix(k.srv.URL, "https://"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(p)
	return n
}

// countingWriter counts what it passes on.
type countingWriter struct {
	w http.ResponseWriter
	k *Kubelet
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.k.mu.Lock()
	c.k.sent += int64(n)
	c.k.mu.Unlock()
	return n, err
}

func (k *Kubelet) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/containerLogs/"), "/")
	if len(parts) != 3 {
		http.NotFound(w, r)
		return
	}
	k.mu.Lock()
	l, ok := k.logs[parts[1]]
	var log podLog
	if ok { // a copy: the test may append while this is sent
		log = podLog{data: l.data, starts: l.starts[:len(l.starts):len(l.starts)], stamps: l.stamps[:len(l.stamps):len(l.stamps)]}
	}
	k.asks = append(k.asks, parts[1]+"?"+r.URL.RawQuery)
	stall := k.stall[parts[1]]
	k.open++
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.open--
		k.mu.Unlock()
	}()
	if !ok {
		http.Error(w, "no such container", http.StatusNotFound)
		return
	}
	q := r.URL.Query()
	first := 0 // the first line to send
	if v := q.Get("tailLines"); v != "" {
		n, _ := strconv.Atoi(v)
		start := len(log.data) - len(lastLines(log.data, n))
		first = sort.SearchInts(log.starts, start)
	}
	var since time.Time
	if v := q.Get("sinceTime"); v != "" {
		var err error
		if since, err = time.Parse(time.RFC3339, v); err != nil {
			http.Error(w, "bad sinceTime", http.StatusBadRequest)
			return
		}
	}
	stamped := q.Get("timestamps") == "true"
	limit := int64(-1)
	if v := q.Get("limitBytes"); v != "" {
		limit, _ = strconv.ParseInt(v, 10, 64)
	}
	out := bufio.NewWriterSize(countingWriter{w, k}, 32<<10)
	defer out.Flush()
	if stall {
		defer func() {
			_ = out.Flush()
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}()
	}
	put := func(b []byte) bool {
		if limit >= 0 {
			b = b[:min(int64(len(b)), limit)]
			limit -= int64(len(b))
		}
		_, err := out.Write(b)
		return err == nil && limit != 0
	}
	for i := first; i < len(log.starts); i++ {
		if log.stamps[i].Before(since) {
			continue
		}
		end := len(log.data)
		if i+1 < len(log.starts) {
			end = log.starts[i+1]
		}
		if stamped && !put([]byte(log.stamps[i].Format("2006-01-02T15:04:05.000000000Z07:00 "))) {
			return
		}
		if !put(log.data[log.starts[i]:end]) {
			return
		}
	}
}

// lastLines is the last n lines of log.
func lastLines(log []byte, n int) []byte {
	end := len(log)
	if end > 0 && log[end-1] == '\n' {
		end--
	}
	for i := end - 1; i >= 0; i-- {
		if log[i] == '\n' {
			if n--; n == 0 {
				return log[i+1:]
			}
		}
	}
	return log
}
