package kubetest

import (
	"context"
	"net"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStartOnATakenPort: the first port Start picks for etcd is taken by
// another process by the time etcd binds it (here: this test holds it).
// etcd exits; Start sees it and starts etcd and kube-apiserver again on
// new ports, and the cluster works.
func TestStartOnATakenPort(t *testing.T) {
	Bins(t)
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	pick, calls := freePort, 0
	t.Cleanup(func() { freePort = pick })
	freePort = func(t testing.TB) int {
		if calls++; calls == 1 {
			return held.Addr().(*net.TCPAddr).Port
		}
		return pick(t)
	}
	kc := Start(t)
	if calls < 6 {
		t.Fatalf("Start picked %d ports: it did not start again after etcd exited", calls)
	}
	if strings.Contains(kc.Config.Host, held.Addr().String()) {
		t.Fatalf("the API server is on the taken port: %s", kc.Config.Host)
	}
	if _, err := kc.Client.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatalf("the cluster started on new ports does not answer: %v", err)
	}
}
