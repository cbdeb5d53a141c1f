package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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

	"github.com/prometheus/common/expfmt"
	promodel "github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// scaleShape is one size of TestKwokScale.
type scaleShape struct {
	nodes, tasks, teams int
	qps                 int // --kube-api-qps
}

// scaleReport is what TestKwokScale measures; TASKGOV_KWOK_SCALE_OUT
// names a file to write it to as JSON.
type scaleReport struct {
	Nodes, Tasks, Pods, Gangs int
	KubeAPIQPS                int
	SubmitSeconds             float64 // to acknowledge every task over HTTP
	AllBoundSeconds           float64 // from the first submission to the last pod bound
	BindP50, BindP99, BindMax float64 // per task: acknowledged to all pods bound, seconds
	Requests                  map[string]float64
	RequestsPerTask           float64
	WritesPerTask             float64
	FailedRequests            float64
	CPUSeconds                float64 // taskgov process, user + system
	PeakRSSMiB                float64
}

// TestKwokScale runs a taskgov server process against kwok nodes with
// 3-layer topology labels and submits tasks over HTTP as fast as it
// acknowledges them: 1% are 4-node whole-node gangs that require one
// layer-3 domain, the rest 1-GPU pods. It measures the time from each
// acknowledgement to all of the task's pods bound, the API requests the
// server made per admitted task (taskgov_kubernetes_requests_total), and the
// server's CPU time and peak memory. It checks that no node is booked past
// its GPUs, that every gang sits in one layer-3 domain, and that no API
// request failed. By default it is small (200 nodes, 1,000 tasks);
// TASKGOV_KWOK_SCALE=full runs 2,000 nodes and 10,000 tasks.
func TestKwokScale(t *testing.T) {
	shape := scaleShape{nodes: 200, tasks: 1000, teams: 10, qps: 1000}
	if os.Getenv("TASKGOV_KWOK_SCALE") == "full" {
		shape = scaleShape{nodes: 2000, tasks: 10000, teams: 10, qps: 1000}
	}
	kc := kubetest.Start(t)
	c := kc.Client
	kc.StartKwok(t, "../../deploy/kwok/stages.yaml")
	createScaleNodes(t, kc, shape.nodes)
	kubeconfig, _ := shippedManifest(t, kc)
	bin := buildBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(kwokScaleCluster(shape)), 0o644); err != nil {
		t.Fatal(err)
	}

	// Watch pods for the moment each is bound.
	var mu sync.Mutex
	boundAt := map[string]time.Time{} // pod name → first seen bound
	podsOf := map[string][]*corev1.Pod{}
	f := informers.NewSharedInformerFactoryWithOptions(c, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = kube.LabelManagedBy + "=" + kube.ManagedByValue
	}))
	seen := func(o any) {
		p, ok := o.(*corev1.Pod)
		if !ok || p.Spec.NodeName == "" {
			return
		}
		mu.Lock()
		if _, ok := boundAt[p.Name]; !ok {
			boundAt[p.Name] = time.Now()
			podsOf[p.Labels[kube.LabelTask]] = append(podsOf[p.Labels[kube.LabelTask]], p)
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
		if t.Failed() { // a goroutine dump in the log
			_ = cmd.Process.Signal(syscall.SIGQUIT)
		} else {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			keep := filepath.Join(os.TempDir(), "taskgov-kwok-scale-server.log")
			_ = os.WriteFile(keep, b, 0o644)
			t.Logf("server log (with a goroutine dump) kept in %s", keep)
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
	rep := scaleReport{Nodes: shape.nodes, Tasks: shape.tasks, KubeAPIQPS: shape.qps}
	acked := submitScaleTasks(t, r.serverProc, shape, &rep)
	start := time.Now()
	for _, at := range acked {
		if at.Before(start) {
			start = at
		}
	}
	wait := 2 * time.Minute
	if shape.tasks > 1000 {
		wait = 10 * time.Minute
	}
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
			_, _ = r.call("GET", "/api/v1/tasks?state=Pending&state=Running&limit=1000", nil, &list)
			states := map[string]int{}
			var sample []string
			for _, x := range list.Tasks {
				states[string(x.State)]++
				if x.State != "Running" && len(sample) < 5 {
					sample = append(sample, x.Name+": "+x.Why+" "+x.Message)
				}
			}
			pods, _ := c.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
			t.Fatalf("%d of %d pods bound after %s; %d pods exist; tasks by state %v; e.g. %v", n, rep.Pods, wait, len(pods.Items), states, sample)
		}
		time.Sleep(200 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	var lats []float64
	var last time.Time
	for task, at := range acked {
		var done time.Time
		for _, p := range podsOf[task] {
			if b := boundAt[p.Name]; b.After(done) {
				done = b
			}
		}
		if done.After(last) {
			last = done
		}
		lats = append(lats, done.Sub(at).Seconds())
	}
	sort.Float64s(lats)
	rep.AllBoundSeconds = last.Sub(start).Seconds()
	rep.BindP50, rep.BindP99, rep.BindMax = lats[len(lats)/2], lats[len(lats)*99/100], lats[len(lats)-1]
	time.Sleep(time.Second) // let the last writes land in the counter
	after := scrapeRequests(t, r.url, r.token)
	var all, writes float64
	rep.Requests, all, writes, rep.FailedRequests = requestsSince(before, after)
	rep.RequestsPerTask = all / float64(shape.tasks)
	rep.WritesPerTask = writes / float64(shape.tasks)
	rep.CPUSeconds, rep.PeakRSSMiB = procUsage(t, cmd.Process.Pid)
	checkScalePlacement(t, podsOf)
	out, _ := json.MarshalIndent(rep, "", "  ")
	t.Logf("scale report:\n%s", out)
	if path := os.Getenv("TASKGOV_KWOK_SCALE_OUT"); path != "" {
		_ = os.WriteFile(path, out, 0o644)
	}
	if rep.FailedRequests > 0 {
		t.Fatalf("%v API requests failed: %v", rep.FailedRequests, rep.Requests)
	}
}

// createScaleNodes makes n kwok GPU nodes in a 3-layer tree: layer 3 groups
// 16 nodes, layer 2 groups 128, layer 1 groups 512.
func createScaleNodes(t *testing.T, kc *kubetest.Cluster, n int) {
	var wg sync.WaitGroup
	work := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range work {
				kc.CreateNode(t, kubetest.GPUNode(fmt.Sprintf("kwok-%04d", i), "ml.p5.48xlarge", 8, map[string]string{
					"topology.k8s.aws/network-node-layer-1": fmt.Sprintf("nn1-%d", i/512),
					"topology.k8s.aws/network-node-layer-2": fmt.Sprintf("nn2-%d", i/128),
					"topology.k8s.aws/network-node-layer-3": fmt.Sprintf("nn3-%d", i/16),
				}, false))
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}

// kwokScaleCluster gives each team an equal share of the nodes.
func kwokScaleCluster(s scaleShape) string {
	var b strings.Builder
	b.WriteString("policy:\n  taskPrioritization: TaskRanking\n  priorityClasses: [{name: inference, weight: 90}, {name: training, weight: 70}]\nteams:\n")
	for i := range s.teams {
		fmt.Fprintf(&b, "  - {name: team%d, quotas: [{instanceType: ml.p5.48xlarge, count: %d}]}\n", i, s.nodes/s.teams)
	}
	return b.String()
}

// isScaleGang: task i goes to team i%teams, and one in a hundred of each
// team's tasks is a gang.
func isScaleGang(i, teams int) bool { return (i/teams)%100 == 50 }

// submitScaleTasks posts the tasks from 16 clients and returns when each
// was acknowledged.
func submitScaleTasks(t *testing.T, s *serverProc, shape scaleShape, rep *scaleReport) map[string]time.Time {
	acked := map[string]time.Time{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan int)
	began := time.Now()
	for range 16 {
		wg.Go(func() {
			for i := range work {
				name := fmt.Sprintf("task-%05d", i)
				body := map[string]any{"name": name, "team": fmt.Sprintf("team%d", i%shape.teams), "instanceType": "ml.p5.48xlarge",
					"priority": "training", "command": []string{"sleep", "3600"}, "perNode": map[string]any{"gpus": 1}}
				if isScaleGang(i, shape.teams) {
					body["nodes"] = 4
					body["perNode"] = nil
					body["requiredTopology"] = "topology.k8s.aws/network-node-layer-3"
				}
				code, err := s.call("POST", "/api/v1/tasks", body, nil)
				if err != nil || code != http.StatusCreated {
					t.Errorf("submit %s: %d %v", name, code, err)
					continue
				}
				mu.Lock()
				acked[name] = time.Now()
				mu.Unlock()
			}
		})
	}
	for i := range shape.tasks {
		work <- i
		if isScaleGang(i, shape.teams) {
			rep.Gangs++
			rep.Pods += 4
		} else {
			rep.Pods++
		}
	}
	close(work)
	wg.Wait()
	rep.SubmitSeconds = time.Since(began).Seconds()
	if t.Failed() {
		t.FailNow()
	}
	return acked
}

// scrapeRequests reads taskgov_kubernetes_requests_total from /metrics,
// keyed "verb resource code".
func scrapeRequests(t *testing.T, base, token string) map[string]float64 {
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(promodel.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	fam := fams["taskgov_kubernetes_requests_total"]
	if fam == nil {
		return out
	}
	for _, m := range fam.Metric {
		l := map[string]string{}
		for _, lp := range m.Label {
			l[lp.GetName()] = lp.GetValue()
		}
		out[l["verb"]+" "+l["resource"]+" "+l["code"]] = m.Counter.GetValue()
	}
	return out
}

// procUsage reads a process's CPU seconds (user + system) and peak RSS.
func procUsage(t *testing.T, pid int) (cpu, rssMiB float64) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			rssMiB = kb / 1024
		}
	}
	return (ut + st) / 100, rssMiB // USER_HZ is 100 on Linux
}

// checkScalePlacement: no node holds more than its 8 GPUs, and each gang's
// pods share one layer-3 domain (16 consecutive node numbers).
func checkScalePlacement(t *testing.T, podsOf map[string][]*corev1.Pod) {
	gpus := map[string]int64{}
	for task, ps := range podsOf {
		domains := map[int]bool{}
		for _, p := range ps {
			q := p.Spec.Containers[0].Resources.Requests[kube.ResourceGPU]
			gpus[p.Spec.NodeName] += q.Value()
			i, _ := strconv.Atoi(strings.TrimPrefix(p.Spec.NodeName, "kwok-"))
			domains[i/16] = true
		}
		if len(ps) > 1 && len(domains) != 1 {
			t.Errorf("gang %s spans layer-3 domains %v", task, domains)
		}
	}
	for n, g := range gpus {
		if g > 8 {
			t.Errorf("node %s holds %d GPUs of 8", n, g)
		}
	}
}

// requestsSince is what taskgov asked of the API server between two
// scrapes of taskgov_kubernetes_requests_total ("verb resource code"):
// the counts that moved, their sum, the writes among them, and the failed
// ones. A watch that ends with an error status (an expired or refused
// resource version) is re-listed by the informer by design; it is not a
// failed request of taskgov's.
func requestsSince(before, after map[string]float64) (moved map[string]float64, all, writes, failed float64) {
	moved = map[string]float64{}
	for k, v := range after {
		d := v - before[k]
		if d == 0 {
			continue
		}
		moved[k] = d
		all += d
		verb, _, _ := strings.Cut(k, " ")
		if verb != "get" && verb != "list" && verb != "watch" {
			writes += d
		}
		if code := k[strings.LastIndex(k, " ")+1:]; !strings.HasPrefix(code, "2") && verb != "watch" {
			failed += d
		}
	}
	return moved, all, writes, failed
}
