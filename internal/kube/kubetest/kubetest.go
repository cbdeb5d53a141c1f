// Package kubetest starts a real etcd and kube-apiserver for tests: no fake
// clientset. The binaries come from scripts/k8s-test-bins.sh, which prints
// the folder to put in TASKGOV_K8S_BIN; etcd comes from Debian's
// etcd-server (scripts/install-test-deps.sh). Tests skip, saying how to get
// them, when either is missing.
package kubetest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/retry"

	"github.com/taskgov/taskgov/internal/testwait"
)

// Cluster is a running API server with an admin identity.
type Cluster struct {
	Config    *rest.Config // admin (system:masters)
	Client    kubernetes.Interface
	dir       string // etcd data, certificates and logs
	apiserver *process
}

// Bins returns the folder holding kube-apiserver, or skips t.
func Bins(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("TASKGOV_K8S_BIN")
	if dir == "" {
		t.Skip("Kubernetes binaries not configured: run export TASKGOV_K8S_BIN=$(scripts/k8s-test-bins.sh) (a cold build takes about 20 minutes)")
	}
	if _, err := os.Stat(filepath.Join(dir, "kube-apiserver")); err != nil {
		t.Skipf("TASKGOV_K8S_BIN=%s has no kube-apiserver: run scripts/k8s-test-bins.sh", dir)
	}
	if _, err := exec.LookPath("etcd"); err != nil {
		t.Skip("etcd is not installed: run scripts/install-test-deps.sh (Debian package etcd-server)")
	}
	return dir
}

// Start runs etcd and kube-apiserver in a temporary folder until the test
// ends, and returns once the API server is ready. Their ports are picked
// free and then bound by the children, so another process may take one
// in between: a child that exits before the API server is ready is started
// again on new ports (up to three tries), as pgtest does for PostgreSQL.
func Start(t testing.TB) *Cluster {
	t.Helper()
	bins := Bins(t)
	dir := t.TempDir()
	key, pub := serviceAccountKeys(t, dir)
	admin := randomToken(t)
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(admin+",admin,admin,\"system:masters\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for try := 1; ; try++ {
		etcdURL := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
		peerURL := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
		etcd := run(t, dir, "etcd", "etcd", "--data-dir", filepath.Join(dir, "etcd-"+strconv.Itoa(try)), "--listen-client-urls", etcdURL,
			"--advertise-client-urls", etcdURL, "--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
			"--initial-cluster", "default="+peerURL, "--log-level", "warn")
		port := freePort(t)
		apiserver := run(t, dir, "kube-apiserver", filepath.Join(bins, "kube-apiserver"),
			"--etcd-servers", etcdURL, "--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(port),
			"--cert-dir", filepath.Join(dir, "certs"), "--token-auth-file", tokens, "--authorization-mode", "RBAC",
			"--service-account-issuer", "https://kubernetes.default.svc", "--service-account-key-file", pub,
			"--service-account-signing-key-file", key, "--service-cluster-ip-range", "10.0.0.0/24",
			"--disable-admission-plugins", "ServiceAccount", "--enable-priority-and-fairness=false",
			// Streaming lists need etcd's progress requests, which this etcd
			// (3.4.23) lacks: kwok's watches then fail and back off for up to
			// 30 s. Without the feature every client lists and watches.
			"--feature-gates=WatchList=false")

		cfg := &rest.Config{Host: "https://127.0.0.1:" + strconv.Itoa(port), BearerToken: admin,
			TLSClientConfig: rest.TLSClientConfig{Insecure: true}, QPS: 500, Burst: 1000}
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		kc := &Cluster{Config: cfg, Client: client, dir: dir, apiserver: apiserver}
		err = kc.ready(etcd)
		if err == nil {
			return kc
		}
		gone := etcd.exited() || apiserver.exited()
		if !gone || try == 3 {
			t.Fatalf("%v (logs in %s)", err, dir)
		}
		t.Logf("try %d: %v; starting both again on new ports (etcd log: %s; kube-apiserver log: %s)", try, err, etcd.tail(400), apiserver.tail(400))
		etcd.stop()
		apiserver.stop()
	}
}

// waitReady waits until the API server is ready again (RestartAPIServer).
func (c *Cluster) waitReady(t testing.TB) {
	t.Helper()
	if err := c.ready(nil); err != nil {
		t.Fatalf("%v (logs in %s)", err, c.dir)
	}
}

// ready polls /readyz for up to 90 s, stretched by the machine's load
// (testwait); it gives up at once when the API server, or etcd if given,
// has exited.
func (c *Cluster) ready(etcd *process) error {
	var last error
	err := testwait.Until(90*time.Second, 200*time.Millisecond, func() bool {
		if c.apiserver.exited() || etcd != nil && etcd.exited() {
			return true
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		body, err := c.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && string(body) != "ok" {
			err = fmt.Errorf("readyz said %q", body)
		}
		last = err
		return err == nil
	})
	switch {
	case c.apiserver.exited():
		return fmt.Errorf("kube-apiserver exited before it was ready")
	case etcd != nil && etcd.exited():
		return fmt.Errorf("etcd exited before kube-apiserver was ready")
	case err != nil:
		return fmt.Errorf("kube-apiserver not ready: %v (last: %v)", err, last)
	}
	return nil
}

// process is a child the test's cleanup stops; its output is appended to
// <dir>/<name>.log.
type process struct {
	name string
	args []string
	log  *os.File
	cmd  *exec.Cmd
	done chan struct{} // closed once cmd has exited
}

func (p *process) start(t testing.TB) {
	t.Helper()
	p.cmd = exec.Command(p.args[0], p.args[1:]...)
	// If the test binary dies (a timeout panic skips cleanups), so does this.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", p.name, err)
	}
	done, cmd := make(chan struct{}), p.cmd
	p.done = done
	go func() { _ = cmd.Wait(); close(done) }()
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *process) stop() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// tail is the last n bytes of the process's log.
func (p *process) tail(n int) string {
	b, _ := os.ReadFile(p.log.Name())
	return string(b[max(0, len(b)-n):])
}

func run(t testing.TB, dir, name string, args ...string) *process {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	p := &process{name: name, args: args, log: log}
	p.start(t)
	t.Cleanup(func() {
		p.stop()
		log.Close()
		if t.Failed() {
			if b, err := os.ReadFile(log.Name()); err == nil && len(b) > 0 {
				tail := b[max(0, len(b)-4000):]
				t.Logf("%s log tail:\n%s", name, tail)
			}
		}
	})
	return p
}

// RestartAPIServer kills kube-apiserver and starts it again on the same
// port and etcd, returning once it is ready. Clients see their watches
// break and must recover on their own.
func (c *Cluster) RestartAPIServer(t testing.TB) {
	t.Helper()
	c.apiserver.stop()
	c.apiserver.start(t)
	c.waitReady(t)
}

// freePort is a port free now, for a child to bind; a variable so that a
// test can hand out a taken one.
var freePort = func(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func randomToken(t testing.TB) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// serviceAccountKeys writes the RSA key pair the API server signs and checks
// service-account tokens with.
func serviceAccountKeys(t testing.TB, dir string) (keyPath, pubPath string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	keyPath, pubPath = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	for path, block := range map[string]*pem.Block{
		keyPath: {Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)},
		pubPath: {Type: "PUBLIC KEY", Bytes: pub},
	} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return keyPath, pubPath
}

// String names the cluster for logs.
func (c *Cluster) String() string { return fmt.Sprintf("kube-apiserver at %s", c.Config.Host) }

// CreateNode creates n and then writes its status, as a kubelet would
// report it (the API server drops status on create).
func (c *Cluster) CreateNode(t testing.TB, n *corev1.Node) {
	t.Helper()
	ctx := context.Background()
	made, err := c.Client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// kwok may write the status first: retry on a conflict with the latest.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		made.Status = n.Status
		_, err := c.Client.CoreV1().Nodes().UpdateStatus(ctx, made, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			if latest, gerr := c.Client.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{}); gerr == nil {
				made = latest
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// WriteKubeconfig writes a kubeconfig that authenticates with token (the
// admin's when empty) and returns its path.
func (c *Cluster) WriteKubeconfig(t testing.TB, token string) string {
	t.Helper()
	if token == "" {
		token = c.Config.BearerToken
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: c.Config.Host, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["user"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "user"}
	cfg.CurrentContext = "test"
	path := filepath.Join(c.dir, "kubeconfig-"+randomToken(t)[:8])
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// GPUNode builds a node of instanceType with gpus GPUs, 191 vCPU and
// 2000 GiB allocatable, the given labels, and a Ready condition.
func GPUNode(name, instanceType string, gpus int64, labels map[string]string, ready bool) *corev1.Node {
	l := map[string]string{"node.kubernetes.io/instance-type": instanceType}
	for k, v := range labels {
		l[k] = v
	}
	status := corev1.ConditionTrue
	if !ready {
		status = corev1.ConditionFalse
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{"nvidia.com/gpu": *apiresource.NewQuantity(gpus, apiresource.DecimalSI),
				corev1.ResourceCPU: apiresource.MustParse("191"), corev1.ResourceMemory: apiresource.MustParse("2000Gi")},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}}}
}

// StartKwok runs kwok against the cluster until the test ends, managing
// every node with the Stage configuration in stages (the repo's
// deploy/kwok/stages.yaml): it plays the kubelet of fake nodes.
func (c *Cluster) StartKwok(t testing.TB, stages string) {
	t.Helper()
	abs, err := filepath.Abs(stages)
	if err != nil {
		t.Fatal(err)
	}
	run(t, c.dir, "kwok", filepath.Join(Bins(t), "kwok"), "--kubeconfig", c.WriteKubeconfig(t, ""), "--config", abs,
		"--manage-all-nodes", "--cidr", "10.64.0.0/10", "--node-ip", "10.0.0.1",
		"--server-address", "127.0.0.1:"+strconv.Itoa(freePort(t)))
}

// StartControllerManager runs the real kube-controller-manager (built by
// scripts/k8s-test-bins.sh from the same pinned module as kube-apiserver)
// with the Job and garbage-collector controllers, until the test ends. It
// skips t when the binary is missing.
func (c *Cluster) StartControllerManager(t testing.TB) {
	t.Helper()
	bin := filepath.Join(Bins(t), "kube-controller-manager")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no kube-controller-manager in TASKGOV_K8S_BIN: run scripts/k8s-test-bins.sh (it builds it, cached, from tools/kube)")
	}
	kubeconfig := c.WriteKubeconfig(t, "")
	run(t, c.dir, "kube-controller-manager", bin, "--kubeconfig", kubeconfig,
		"--authentication-kubeconfig", kubeconfig, "--authorization-kubeconfig", kubeconfig,
		"--controllers", "job-controller,garbage-collector-controller", "--leader-elect=false",
		"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(freePort(t)), "--concurrent-job-syncs", "20",
		"--kube-api-qps", "500", "--kube-api-burst", "1000")
}
