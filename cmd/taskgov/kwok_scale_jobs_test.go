package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/kube"
)

// jobsReport is what TestKwokScaleJobs measures.
type jobsReport struct {
	Nodes, Jobs, MultiPod, Pods  int
	CreateSeconds                float64 // to create every Job (each answered by the API server)
	AllBoundSeconds              float64 // from the first create to the last pod bound
	BoundP50, BoundP99, BoundMax float64 // per Job: created to all its pods bound, seconds
	Requests                     map[string]float64
	RequestsPerJob               float64
	WritesPerJob                 float64
	FailedRequests               float64
	CPUSeconds                   float64
	PeakRSSMiB                   float64
}

// TestKwokScaleJobs is TestKwokScale for workloads users apply: 300 (with
// TASKGOV_KWOK_SCALE=full, 1,000) Kueue-labelled batch/v1 Jobs (10% of them 2-pod Jobs of 4 GPUs per pod
// that require one layer-3 domain, the rest 1-GPU single-pod Jobs) created
// through client-go from 16 goroutines against the admission policies, the
// real Job controller, kwok nodes and a taskgov server process. It reports
// the time from each Job's create to all its pods bound, and the API
// requests taskgov made per Job (its own counter); it checks placement and
// that no request failed. The default (80 nodes) keeps CI short; full
// runs 1,000 Jobs on 256 nodes.
func TestKwokScaleJobs(t *testing.T) {
	shape := scaleShape{nodes: 80, tasks: 300, teams: 10, qps: 1000}
	if os.Getenv("TASKGOV_KWOK_SCALE") == "full" {
		shape = scaleShape{nodes: 256, tasks: 1000, teams: 10, qps: 1000}
	}
	kc, _ := workloadCluster(t, true)
	c := kc.Client
	createScaleNodes(t, kc, shape.nodes)
	kubeconfig, _ := shippedManifest(t, kc)
	bin := buildBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(kwokScaleCluster(shape)), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range shape.teams {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("hyperpod-ns-team%d", i)}}
		if _, err := c.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	var mu sync.Mutex
	boundAt := map[string]time.Time{}    // pod → first seen bound
	podsOf := map[string][]*corev1.Pod{} // Job → its bound pods
	f := informers.NewSharedInformerFactoryWithOptions(c, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = kube.LabelQueueName
	}))
	seen := func(o any) {
		p, ok := o.(*corev1.Pod)
		if !ok || p.Spec.NodeName == "" {
			return
		}
		mu.Lock()
		if _, ok := boundAt[p.Namespace+"/"+p.Name]; !ok {
			boundAt[p.Namespace+"/"+p.Name] = time.Now()
			job := p.Namespace + "/" + p.Labels["batch.kubernetes.io/job-name"]
			podsOf[job] = append(podsOf[job], p)
		}
		mu.Unlock()
	}
	_, _ = f.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: seen, UpdateFunc: func(_, o any) { seen(o) }})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.Start(ctx.Done())

	addr := anyPort
	cmd := exec.Command(bin, "server", "--data-dir", dir, "--listen", addr, "--config", cfg, "--executor", "kubernetes",
		"--kubeconfig", kubeconfig, "--image", "busybox", "--kube-api-qps", strconv.Itoa(shape.qps))
	logf, _ := os.Create(filepath.Join(dir, "server.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("server log tail:\n%s", b[max(0, len(b)-4000):])
		}
	})
	addr = boundAddr(t, logf.Name(), 0, 60*time.Second)
	r := &replica{serverProc: &serverProc{t: t, cmd: cmd, url: "http://" + addr}, addr: addr}
	r.waitStatus(t, "/readyz", 200, 60*time.Second)
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	r.token = strings.TrimSpace(string(tok))
	waitFor(t, 2*time.Minute, func() bool {
		var out struct{ Nodes []apitypes.Node }
		_, _ = r.call("GET", "/api/v1/nodes", nil, &out)
		n := 0
		for _, x := range out.Nodes {
			if x.Healthy {
				n++
			}
		}
		return n == shape.nodes
	})

	before := scrapeRequests(t, r.url, r.token)
	rep := jobsReport{Nodes: shape.nodes, Jobs: shape.tasks}
	created := map[string]time.Time{}
	var cmu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan int)
	began := time.Now()
	for range 16 {
		wg.Go(func() {
			for i := range work {
				job := scaleJob(i, shape.teams)
				if _, err := c.BatchV1().Jobs(job.Namespace).Create(context.Background(), job, metav1.CreateOptions{}); err != nil {
					t.Errorf("create %s: %v", job.Name, err)
					continue
				}
				cmu.Lock()
				created[job.Namespace+"/"+job.Name] = time.Now()
				cmu.Unlock()
			}
		})
	}
	for i := range shape.tasks {
		work <- i
		if isScaleJobGang(i, shape.teams) {
			rep.MultiPod++
			rep.Pods += 2
		} else {
			rep.Pods++
		}
	}
	close(work)
	wg.Wait()
	rep.CreateSeconds = time.Since(began).Seconds()
	if t.Failed() {
		t.FailNow()
	}
	wait := 3 * time.Minute
	deadline := time.Now().Add(wait)
	for {
		mu.Lock()
		n := len(boundAt)
		mu.Unlock()
		if n == rep.Pods {
			break
		}
		if time.Now().After(deadline) {
			var list struct{ Tasks []apitypes.Task }
			_, _ = r.call("GET", "/api/v1/tasks?state=Pending&limit=5", nil, &list)
			var why []string
			for _, x := range list.Tasks {
				var one apitypes.Task
				_, _ = r.call("GET", "/api/v1/tasks/"+x.Name, nil, &one)
				why = append(why, fmt.Sprintf("%s: %s %s", x.Name, one.State, one.Why))
			}
			t.Fatalf("%d of %d pods bound after %s; pending e.g. %v", n, rep.Pods, wait, why)
		}
		time.Sleep(200 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	var lats []float64
	var last time.Time
	for job, at := range created {
		var done time.Time
		for _, p := range podsOf[job] {
			if b := boundAt[p.Namespace+"/"+p.Name]; b.After(done) {
				done = b
			}
		}
		if done.After(last) {
			last = done
		}
		lats = append(lats, done.Sub(at).Seconds())
	}
	sort.Float64s(lats)
	rep.AllBoundSeconds = last.Sub(began).Seconds()
	rep.BoundP50, rep.BoundP99, rep.BoundMax = lats[len(lats)/2], lats[len(lats)*99/100], lats[len(lats)-1]
	time.Sleep(2 * time.Second) // the last status annotations land in the counter
	after := scrapeRequests(t, r.url, r.token)
	var all, writes float64
	rep.Requests, all, writes, rep.FailedRequests = requestsSince(before, after)
	rep.RequestsPerJob = all / float64(shape.tasks)
	rep.WritesPerJob = writes / float64(shape.tasks)
	rep.CPUSeconds, rep.PeakRSSMiB = procUsage(t, cmd.Process.Pid)
	checkJobPlacement(t, podsOf)
	out, _ := json.MarshalIndent(rep, "", "  ")
	t.Logf("scale report (Jobs):\n%s", out)
	if path := os.Getenv("TASKGOV_KWOK_SCALE_OUT"); path != "" {
		_ = os.WriteFile(strings.TrimSuffix(path, ".json")+"-jobs.json", out, 0o644)
	}
	if rep.FailedRequests > 0 {
		t.Fatalf("%v API requests failed: %v", rep.FailedRequests, rep.Requests)
	}
}

// isScaleJobGang: one in ten of each team's Jobs is multi-pod.
func isScaleJobGang(i, teams int) bool { return (i/teams)%10 == 5 }

// scaleJob is Job i: team i%teams; one in ten is 2 pods of 4 GPUs that
// require one layer-3 domain, the rest one pod of 1 GPU.
func scaleJob(i, teams int) *batchv1.Job {
	team := fmt.Sprintf("team%d", i%teams)
	pods, gpus := int32(1), int64(1)
	var ann map[string]string
	if isScaleJobGang(i, teams) {
		pods, gpus = 2, 4
		ann = map[string]string{kube.AnnRequiredTopo: "topology.k8s.aws/network-node-layer-3"}
	}
	q := *apiresource.NewQuantity(gpus, apiresource.DecimalSI)
	labels := map[string]string{kube.LabelQueueName: "hyperpod-ns-" + team + "-localqueue", kube.LabelPriorityClass: "training-priority"}
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("job-%05d", i), Namespace: "hyperpod-ns-" + team, Labels: labels},
		Spec: batchv1.JobSpec{Parallelism: &pods, Completions: &pods,
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: ann},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
					NodeSelector: map[string]string{kube.LabelInstanceType: "ml.p5.48xlarge"},
					Containers: []corev1.Container{{Name: "train", Image: "busybox",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{kube.ResourceGPU: q}, Limits: corev1.ResourceList{kube.ResourceGPU: q}}}}}}}}
}

// checkJobPlacement: no node holds more than 8 GPUs; a Job's pods share one
// layer-3 domain (16 consecutive node numbers).
func checkJobPlacement(t *testing.T, podsOf map[string][]*corev1.Pod) {
	gpus := map[string]int64{}
	for job, ps := range podsOf {
		domains, nodes := map[int]bool{}, map[string]bool{}
		for _, p := range ps {
			q := p.Spec.Containers[0].Resources.Requests[kube.ResourceGPU]
			gpus[p.Spec.NodeName] += q.Value()
			i, _ := strconv.Atoi(strings.TrimPrefix(p.Spec.NodeName, "kwok-"))
			domains[i/16] = true
			nodes[p.Spec.NodeName] = true
		}
		if len(ps) > 1 && len(domains) != 1 {
			t.Errorf("Job %s: pods on nodes %v, layer-3 domains %v", job, nodes, domains)
		}
	}
	for n, g := range gpus {
		if g > 8 {
			t.Errorf("node %s holds %d GPUs of 8", n, g)
		}
	}
}
