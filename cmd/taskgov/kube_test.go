package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
	"github.com/taskgov/taskgov/internal/testwait"
)

// shippedManifest reads deploy/kubernetes/taskgov.yaml: it applies the
// namespace, service account and RBAC objects to the cluster, and returns a
// kubeconfig with a real token of that service account and the ConfigMap's
// cluster file.
func shippedManifest(t *testing.T, kc *kubetest.Cluster) (kubeconfig, clusterYAML string) {
	t.Helper()
	ctx := context.Background()
	raw, err := os.ReadFile("../../deploy/kubernetes/taskgov.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := kc.Client
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatalf("deploy/kubernetes/taskgov.yaml: %v\n%s", err, doc)
		}
		switch o := obj.(type) {
		case *corev1.Namespace:
			_, err = c.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{})
		case *corev1.ServiceAccount:
			_, err = c.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRole:
			_, err = c.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRoleBinding:
			_, err = c.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.Role:
			_, err = c.RbacV1().Roles(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			_, err = c.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.ConfigMap:
			clusterYAML = o.Data["cluster.yaml"]
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	exp := int64(3600)
	tok, err := c.CoreV1().ServiceAccounts("taskgov-system").CreateToken(ctx, "taskgov",
		&authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The token really is limited to the manifest's rules.
	limited := rest.CopyConfig(kc.Config)
	limited.BearerToken = tok.Status.Token
	lc, err := kubernetes.NewForConfig(limited)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("the service account may list secrets (err %v); the test would not prove least privilege", err)
	}
	if clusterYAML == "" {
		t.Fatal("the manifest's ConfigMap has no cluster.yaml")
	}
	return kc.WriteKubeconfig(t, tok.Status.Token), clusterYAML
}

// applyRBAC creates the ClusterRoles and ClusterRoleBindings of an extra
// RBAC manifest (deploy/kubernetes/team-namespaces.yaml) as it is.
func applyRBAC(t *testing.T, kc *kubetest.Cluster, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch o := obj.(type) {
		case *rbacv1.ClusterRole:
			_, err = kc.Client.RbacV1().ClusterRoles().Create(context.Background(), o, metav1.CreateOptions{})
		case *rbacv1.ClusterRoleBinding:
			_, err = kc.Client.RbacV1().ClusterRoleBindings().Create(context.Background(), o, metav1.CreateOptions{})
		default:
			t.Fatalf("%s: unexpected %T", path, obj)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// taskPods lists a task's pods in its team's namespace.
func taskPods(t *testing.T, c kubernetes.Interface, task string) []corev1.Pod {
	t.Helper()
	ps, err := c.CoreV1().Pods("hyperpod-ns-research").List(context.Background(), metav1.ListOptions{LabelSelector: kube.LabelTask + "=" + task})
	if err != nil {
		t.Fatal(err)
	}
	return ps.Items
}

func waitPods(t *testing.T, c kubernetes.Interface, task string, ok func([]corev1.Pod) bool) []corev1.Pod {
	t.Helper()
	var ps []corev1.Pod
	if err := testwait.Until(60*time.Second, 100*time.Millisecond, func() bool { ps = taskPods(t, c, task); return ok(ps) }); err != nil {
		t.Fatalf("pods of %s never got there: %v: %+v", task, err, taskPods(t, c, task))
	}
	return ps
}

// boundLive returns a check that a task has n pods, each bound to a node
// and none being deleted.
func boundLive(n int) func([]corev1.Pod) bool {
	return func(ps []corev1.Pod) bool {
		for _, p := range ps {
			if p.Spec.NodeName == "" || p.DeletionTimestamp != nil {
				return false
			}
		}
		return len(ps) == n
	}
}

// kubelet plays the node agent the test cluster lacks: it sets a pod's
// phase, or confirms a graceful deletion.
func finishPod(t *testing.T, c kubernetes.Interface, old corev1.Pod, phase corev1.PodPhase, code int32) {
	t.Helper()
	fresh, err := c.CoreV1().Pods(old.Namespace).Get(context.Background(), old.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := *fresh // kwok may have written its status since old was read
	p.Status.Phase = phase
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "task", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}}
	if _, err := c.CoreV1().Pods(p.Namespace).UpdateStatus(context.Background(), &p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// startKubeServer runs an in-process server on the Kubernetes executor with
// data in dir; stop ends it as SIGTERM would (it is also a cleanup).
func startKubeServer(t *testing.T, dir, cfg, kubeconfig string, mods ...func(*serverOptions)) (addr string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc, errc := make(chan string, 1), make(chan error, 1)
	logf, _ := os.OpenFile(filepath.Join(dir, "server.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	o := serverOptions{config: cfg, dataDir: dir, listen: "127.0.0.1:0", logTo: logf, sampleInterval: time.Second,
		executor: "kubernetes", kubeconfig: kubeconfig, image: "busybox", kubeQPS: 100}
	for _, m := range mods {
		m(&o)
	}
	go func() {
		errc <- runServer(ctx, o, func(a string) { addrc <- a })
	}()
	select {
	case addr = <-addrc:
	case err := <-errc:
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-errc; err != nil {
				t.Errorf("server: %v", err)
			}
			logf.Close()
			if t.Failed() {
				b, _ := os.ReadFile(logf.Name())
				t.Logf("server log:\n%s", b)
			}
		})
	}
	t.Cleanup(stop)
	return addr, stop
}

// TestServerOnKubernetes runs the taskgov server against a real API server,
// as the shipped manifest's service account with exactly its RBAC and its
// cluster file: nodes come from the API server, a 2-node gang is bound where the core placed it and
// finishes when its pods do, and a node turning NotReady requeues its task,
// which starts again elsewhere only after its old pod is gone.
func TestServerOnKubernetes(t *testing.T) {
	kc := kubetest.Start(t)
	c := kc.Client
	for _, n := range []string{"p5-0", "p5-1"} {
		kc.CreateNode(t, kubetest.GPUNode(n, "ml.p5.48xlarge", 8, nil, true))
	}
	kubeconfig, clusterYAML := shippedManifest(t, kc)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(clusterYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _ := startKubeServer(t, dir, cfg, kubeconfig)
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	t.Setenv("TASKGOV_SERVER", "http://"+addr)
	t.Setenv("TASKGOV_TOKEN", strings.TrimSpace(string(tok)))
	t.Setenv("TASKGOV_CONFIG", filepath.Join(dir, "cli.yaml"))

	if out := mustCLI(t, "node", "list"); !strings.Contains(out, "p5-0") || !strings.Contains(out, "p5-1") {
		t.Fatalf("nodes from the API server missing:\n%s", out)
	}
	mustCLI(t, "start-job", "--job-name", "pretrain", "-n", "hyperpod-ns-research", "--instance-type", "ml.p5.48xlarge",
		"--node-count", "2", "--command", "python3 train.py", "--image", "registry.example/train:1")
	bound := func(ps []corev1.Pod) bool {
		for _, p := range ps {
			if p.Spec.NodeName == "" {
				return false
			}
		}
		return len(ps) > 0
	}
	pods := waitPods(t, c, "pretrain", func(ps []corev1.Pod) bool { return len(ps) == 2 && bound(ps) })
	if pods[0].Spec.NodeName == pods[1].Spec.NodeName {
		t.Fatalf("both ranks on %s", pods[0].Spec.NodeName)
	}
	for _, p := range pods {
		if img := p.Spec.Containers[0].Image; img != "registry.example/train:1" {
			t.Fatalf("start-job --image: pod %s runs %s", p.Name, img)
		}
	}
	for _, p := range pods {
		finishPod(t, c, p, corev1.PodSucceeded, 0)
	}
	waitJob(t, "pretrain", "Succeeded")

	// A node turning NotReady requeues the task on it.
	mustCLI(t, "start-job", "--job-name", "eval", "-n", "hyperpod-ns-research", "--instance-type", "ml.p5.48xlarge",
		"--node-count", "1", "--command", "sleep 600")
	first := waitPods(t, c, "eval", func(ps []corev1.Pod) bool { return len(ps) == 1 && bound(ps) })[0]
	n, err := c.CoreV1().Nodes().Get(context.Background(), first.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
	if _, err := c.CoreV1().Nodes().UpdateStatus(context.Background(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Its kubelet cannot confirm a graceful delete, so the pod is deleted
	// at once and the task starts again elsewhere.
	old := first
	again := waitPods(t, c, "eval", func(ps []corev1.Pod) bool { return len(ps) == 1 && ps[0].Name != old.Name && bound(ps) })[0]
	if again.Spec.NodeName == first.Spec.NodeName {
		t.Fatalf("requeued onto the NotReady node %s", again.Spec.NodeName)
	}
	// The API server restarts: taskgov's watches recover, nothing is lost
	// and nothing starts twice.
	kc.RestartAPIServer(t)
	// The NotReady node recovers; taskgov must see it through its re-made
	// watches to place the next job there.
	n, err = c.CoreV1().Nodes().Get(context.Background(), first.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	if _, err := c.CoreV1().Nodes().UpdateStatus(context.Background(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, "start-job", "--job-name", "after", "-n", "hyperpod-ns-research", "--instance-type", "ml.p5.48xlarge",
		"--node-count", "1", "--command", "true")
	after := waitPods(t, c, "after", func(ps []corev1.Pod) bool { return len(ps) == 1 && bound(ps) })[0]
	if after.Spec.NodeName != first.Spec.NodeName {
		t.Fatalf("after went to %s, want the recovered node %s", after.Spec.NodeName, first.Spec.NodeName)
	}
	if ps := taskPods(t, c, "eval"); len(ps) != 1 || ps[0].Name != again.Name {
		t.Fatalf("eval's pods after the API-server restart: %d, want just %s", len(ps), again.Name)
	}
	waitJob(t, "eval", "Running")
	// Finish both, so shutdown has nothing to wait for.
	finishPod(t, c, again, corev1.PodSucceeded, 0)
	finishPod(t, c, after, corev1.PodSucceeded, 0)
	waitJob(t, "eval", "Succeeded")
	waitJob(t, "after", "Succeeded")
}

// TestKubernetesRestartAdoptsPods stops and restarts taskgov while its pods
// run: a running gang is adopted (same pods, nothing deleted, nothing
// started twice), a pod that finished meanwhile completes its task, and a
// task whose pod vanished is requeued and started again.
func TestKubernetesRestartAdoptsPods(t *testing.T) {
	kc := kubetest.Start(t)
	c := kc.Client
	kc.StartKwok(t, "../../deploy/kwok/stages.yaml")
	for _, n := range []string{"p5-0", "p5-1", "p5-2", "p5-3"} {
		kc.CreateNode(t, kubetest.GPUNode(n, "ml.p5.48xlarge", 8, nil, false)) // kwok makes them Ready
	}
	kubeconfig, clusterYAML := shippedManifest(t, kc)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	// Room for all three jobs: the manifest's team has 2 nodes; lend it 4.
	clusterYAML = strings.Replace(clusterYAML, "count: 2", "count: 4", 1)
	if err := os.WriteFile(cfg, []byte(clusterYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	useServer := func(addr string) {
		tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
		t.Setenv("TASKGOV_SERVER", "http://"+addr)
		t.Setenv("TASKGOV_TOKEN", strings.TrimSpace(string(tok)))
		t.Setenv("TASKGOV_CONFIG", filepath.Join(dir, "cli.yaml"))
	}
	addr, stop := startKubeServer(t, dir, cfg, kubeconfig)
	useServer(addr)
	for _, j := range []struct {
		name  string
		nodes string
	}{{"gang", "2"}, {"short", "1"}, {"lost", "1"}} {
		mustCLI(t, "start-job", "--job-name", j.name, "-n", "hyperpod-ns-research", "--instance-type", "ml.p5.48xlarge",
			"--node-count", j.nodes, "--command", "sleep 600")
	}
	gang := waitPods(t, c, "gang", boundLive(2))
	short := waitPods(t, c, "short", boundLive(1))[0]
	lost := waitPods(t, c, "lost", boundLive(1))[0]
	waitJob(t, "gang", "Running")
	waitJob(t, "lost", "Running")

	stop()
	if ps := taskPods(t, c, "gang"); !boundLive(2)(ps) {
		t.Fatalf("stopping taskgov touched the gang's pods: %+v", ps)
	}
	// While taskgov is down, one pod finishes and one is deleted by hand.
	finishPod(t, c, short, corev1.PodSucceeded, 0)
	zero := int64(0)
	if err := c.CoreV1().Pods(lost.Namespace).Delete(context.Background(), lost.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}

	addr, _ = startKubeServer(t, dir, cfg, kubeconfig)
	useServer(addr)
	waitJob(t, "short", "Succeeded")
	again := waitPods(t, c, "lost", boundLive(1))[0]
	if again.Name == lost.Name || again.Labels[kube.LabelRun] != "1" {
		t.Fatalf("lost restarted as %s (run %s), want a new pod of run 1", again.Name, again.Labels[kube.LabelRun])
	}
	waitJob(t, "gang", "Running")
	time.Sleep(500 * time.Millisecond) // room for a wrong delete or a second start to show
	now := taskPods(t, c, "gang")
	if !boundLive(2)(now) {
		t.Fatalf("the gang's pods after the restart: %+v", now)
	}
	for i := range now {
		found := false
		for _, p := range gang {
			found = found || p.UID == now[i].UID
		}
		if !found {
			t.Fatalf("pod %s was not there before the restart: the gang started twice", now[i].Name)
		}
	}
	if out := mustCLI(t, "get-job", "--job-name", "gang", "-o", "json"); !strings.Contains(out, `"resumes": 0`) {
		t.Fatalf("the adopted gang counts a resume:\n%s", out)
	}
	if ev := mustCLI(t, "get-job", "--job-name", "gang", "--verbose"); !strings.Contains(ev, "adopted after a server restart") {
		t.Fatalf("no adoption event:\n%s", ev)
	}
	for _, p := range now {
		finishPod(t, c, p, corev1.PodSucceeded, 0)
	}
	finishPod(t, c, again, corev1.PodSucceeded, 0)
	waitJob(t, "gang", "Succeeded")
	waitJob(t, "lost", "Succeeded")
}
