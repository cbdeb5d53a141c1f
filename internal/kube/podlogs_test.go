package kube

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
	"github.com/taskgov/taskgov/internal/model"
)

// fakeKubelet serves pods' logs as a kubelet does to the API server (GET
// /containerLogs/NAMESPACE/POD/CONTAINER, with limitBytes: at most that
// many bytes from the start, and tailLines: the last lines, a final
// newline starting none), from logs it holds, and counts what it sent.
type fakeKubelet struct {
	srv  *httptest.Server
	mu   sync.Mutex
	logs map[string][]byte // by pod name
	sent int64
	asks []string
}

func newFakeKubelet(t *testing.T) *fakeKubelet {
	k := &fakeKubelet{logs: map[string][]byte{}}
	k.srv = httptest.NewTLSServer(http.HandlerFunc(k.serve))
	t.Cleanup(k.srv.Close)
	return k
}

func (k *fakeKubelet) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/containerLogs/"), "/")
	if len(parts) != 3 {
		http.NotFound(w, r)
		return
	}
	k.mu.Lock()
	log, ok := k.logs[parts[1]]
	k.asks = append(k.asks, parts[1]+"?"+r.URL.RawQuery)
	k.mu.Unlock()
	if !ok {
		http.Error(w, "no such container", http.StatusNotFound)
		return
	}
	q := r.URL.Query()
	if v := q.Get("tailLines"); v != "" {
		n, _ := strconv.Atoi(v)
		end := len(log)
		if end > 0 && log[end-1] == '\n' {
			end--
		}
		start := 0
		for i := end - 1; i >= 0; i-- {
			if log[i] == '\n' {
				if n--; n == 0 {
					start = i + 1
					break
				}
			}
		}
		log = log[start:]
	}
	if v := q.Get("limitBytes"); v != "" {
		n, _ := strconv.Atoi(v)
		log = log[:min(n, len(log))]
	}
	n, _ := w.Write(log)
	k.mu.Lock()
	k.sent += int64(n)
	k.mu.Unlock()
}

// took returns and resets what the kubelet sent and was asked since.
func (k *fakeKubelet) took() (int64, []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	sent, asks := k.sent, k.asks
	k.sent, k.asks = 0, nil
	return sent, asks
}

// node is a Ready node whose kubelet endpoint is k.
func (k *fakeKubelet) node(t *testing.T, name string) *corev1.Node {
	_, port, err := net.SplitHostPort(strings.TrimPrefix(k.srv.URL, "https://"))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	n := p5Node(name, "nn3-a", true, nil)
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(p)
	return n
}

// lines is a log of n numbered lines of width bytes each.
func lines(run, n, width int) []byte {
	var b bytes.Buffer
	for i := range n {
		s := fmt.Sprintf("run %d line %d ", run, i)
		b.WriteString(s + strings.Repeat("x", width-len(s)-1) + "\n")
	}
	return b.Bytes()
}

// TestPodLogsReadOnlyThePartAsked: a rank's logs across two runs (pods),
// 12 MiB in all, read through a real API server from a kubelet that
// counts what it sends: a part from an offset, a read on from its end and
// a tail each make the kubelet send no more than the part needs (plus the
// bytes before an offset, which the API server cannot seek past), never
// the whole log; the parts are the log's own bytes, and their headers'
// figures are exact where the API server lets taskgov know them.
func TestPodLogsReadOnlyThePartAsked(t *testing.T) {
	kc := kubetest.Start(t)
	kl := newFakeKubelet(t)
	kc.CreateNode(t, kl.node(t, "p5-0"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ex := NewExecutor(kc.Client, "busybox")
	if err := ex.Run(ctx); err != nil {
		t.Fatal(err)
	}
	run0, run1 := lines(0, 32<<10, 128), lines(1, 64<<10, 128) // 4 MiB and 8 MiB
	kl.logs["big-0-run0"], kl.logs["big-0-run1"] = run0, run1
	for run := range 2 {
		if err := ex.Start(executor.StartSpec{Task: "big", Team: "research", Command: []string{"true"}, Resumes: run,
			Pods: []executor.Pod{{Rank: 0, Node: "p5-0"}}}); err != nil {
			t.Fatal(err)
		}
	}
	var whole []byte
	for _, name := range []string{"big-0-run0", "big-0-run1"} {
		whole = append(append(whole, "=== taskgov: pod "+name+" on node p5-0 ===\n"...), kl.logs[name]...)
	}
	window := func(w model.LogWindow) model.LogPart {
		t.Helper()
		var rc io.ReadCloser
		var err error
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			if rc, err = ex.Logs("big", 0); err == nil && len(ex.taskPods("big")) == 2 || time.Now().After(deadline) {
				break
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		part, err := rc.(interface {
			Window(model.LogWindow) (model.LogPart, error)
		}).Window(w)
		if err != nil {
			t.Fatal(err)
		}
		return part
	}
	const limit = 1 << 20
	check := func(what string, part model.LogPart, from int64, more bool, size int64, maxSent int64) {
		t.Helper()
		sent, asks := kl.took()
		want := whole[from:min(int64(len(whole)), from+limit)]
		if !bytes.Equal(part.Data, want) || part.Start != from || part.End != from+int64(len(want)) || part.More != more || part.Size != size {
			t.Errorf("%s: %d bytes [%d, %d) more %v size %d; want %d bytes [%d, %d) more %v size %d",
				what, len(part.Data), part.Start, part.End, part.More, part.Size, len(want), from, from+int64(len(want)), more, size)
		}
		if sent > maxSent {
			t.Errorf("%s: the kubelet sent %d bytes (asked %v), want at most %d", what, sent, asks, maxSent)
		}
	}
	kl.took()
	check("the first MiB", window(model.LogWindow{Limit: limit}), 0, true, -1, limit+1)
	mid := int64(len(run0)) - 100 // across the second pod's header
	check("a MiB across the runs", window(model.LogWindow{Offset: mid, Limit: limit}), mid, true, -1, mid+limit+1)
	end := int64(len(whole)) - 1000
	check("the last 1000 bytes", window(model.LogWindow{Offset: end, Limit: limit}), end, false, int64(len(whole)), int64(len(whole)))
	if part := window(model.LogWindow{Offset: int64(len(whole)) + 1, Limit: limit}); part.Size != int64(len(whole)) || len(part.Data) != 0 {
		t.Errorf("an offset past the end: %d bytes, size %d; want none and the size %d", len(part.Data), part.Size, len(whole))
	}
	kl.took()

	// A tail: the last lines of the last run, sent by the kubelet alone.
	part := window(model.LogWindow{Tail: 10, Limit: limit})
	sent, _ := kl.took()
	if want := run1[len(run1)-10*128:]; !bytes.Equal(part.Data, want) || part.More || part.Start != -1 || part.Size != -1 || sent != int64(len(want)) {
		t.Errorf("the last 10 lines: %q more %v start %d size %d, kubelet sent %d; want the run's last 10 lines, placed nowhere, and only them sent",
			part.Data, part.More, part.Start, part.Size, sent)
	}
	// A tail longer than the limit: its last limit bytes, More, and the
	// kubelet sends the lines asked (no more), the executor keeps limit.
	part = window(model.LogWindow{Tail: 20000, Limit: limit})
	sent, _ = kl.took()
	if want := whole[len(whole)-limit:]; !bytes.Equal(part.Data, want) || !part.More || sent != 20000*128 {
		t.Errorf("a tail past the limit: %d bytes more %v, kubelet sent %d; want the last %d bytes, more, and 20000 lines sent", len(part.Data), part.More, sent, limit)
	}
	// A tail reaching into the first run: its header and its last lines.
	part = window(model.LogWindow{Tail: 64<<10 + 3, Limit: 12 << 20})
	kl.took()
	if want := whole[len(whole)-(64<<10)*128-len("=== taskgov: pod big-0-run1 on node p5-0 ===\n")-2*128:]; !bytes.Equal(part.Data, want) || part.More {
		t.Errorf("a tail across the runs: %d bytes more %v; want %d bytes", len(part.Data), part.More, len(want))
	}
	// A tail of more lines than the log has: the whole log, placed.
	part = window(model.LogWindow{Tail: 100000, Limit: 13 << 20})
	if !bytes.Equal(part.Data, whole) || part.More || part.Start != 0 || part.End != int64(len(whole)) || part.Size != int64(len(whole)) {
		t.Errorf("a tail of the whole log: %d bytes more %v [%d, %d) size %d; want all %d, placed", len(part.Data), part.More, part.Start, part.End, part.Size, len(whole))
	}

	// Read streams the whole log, pod after pod.
	rc, err := ex.Logs("big", 0)
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(rc)
	_ = rc.Close()
	if err != nil || !bytes.Equal(all, whole) {
		t.Errorf("reading the whole log: %d bytes, %v; want %d", len(all), err, len(whole))
	}
}
