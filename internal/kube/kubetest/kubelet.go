package kubetest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Kubelet plays the one part of a kubelet the API server calls for pod
// logs (GET /containerLogs/NAMESPACE/POD/CONTAINER, which the API server
// proxies pods/log to): it serves the logs a test gives it, honouring
// limitBytes (at most that many bytes from the start) and tailLines (the
// last lines; a final newline starts none), and counts what it sent. The
// API server does not check a kubelet's certificate unless told to
// (--kubelet-certificate-authority), so a test TLS server does.
type Kubelet struct {
	srv  *httptest.Server
	mu   sync.Mutex
	logs map[string][]byte // by pod name
	sent int64
	asks []string
}

// StartKubelet serves pod logs until the test ends.
func StartKubelet(t testing.TB) *Kubelet {
	k := &Kubelet{logs: map[string][]byte{}}
	k.srv = httptest.NewTLSServer(http.HandlerFunc(k.serve))
	t.Cleanup(k.srv.Close)
	return k
}

// SetLog makes log the log of every container of the pod named pod.
func (k *Kubelet) SetLog(pod string, log []byte) {
	k.mu.Lock()
	k.logs[pod] = log
	k.mu.Unlock()
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

func (k *Kubelet) serve(w http.ResponseWriter, r *http.Request) {
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
		log = lastLines(log, n)
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
