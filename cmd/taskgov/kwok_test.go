package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// kwokCluster is the cluster file of the kwok tests: one team that may
// preempt its own lower-priority tasks.
const kwokCluster = `
policy:
  taskPrioritization: TaskRanking
  preemption: Immediate # the test shows a preemption at once
  priorityClasses: [{name: inference, weight: 90}, {name: training, weight: 70}]
teams:
  - {name: research, preemptTeamTasks: LowerPriority, quotas: [{instanceType: ml.p5.48xlarge, count: 8}]}
`

// layerLabels puts node i of 8 in a 3-layer tree: one layer-1 node, two
// layer-2 nodes of four, four layer-3 nodes of two.
func layerLabels(i int) map[string]string {
	return map[string]string{
		"topology.k8s.aws/network-node-layer-1": "nn-1",
		"topology.k8s.aws/network-node-layer-2": fmt.Sprintf("nn-2-%d", i/4),
		"topology.k8s.aws/network-node-layer-3": fmt.Sprintf("nn-3-%d", i/2),
	}
}

// TestKwokCluster runs taskgov against kwok nodes that the repo's Stage
// configuration drives (deploy/kwok/stages.yaml), as the shipped manifest's
// service account: nodes turn Ready and are discovered with their topology;
// a task's checkpoint marker on the checkpoint storage is reported;
// a foreign pod landing on a node after it joined shrinks what taskgov
// offers there, and its removal gives it back;
// a gang that requires one layer-2 domain is bound there and runs to
// completion; a preemption deletes the victim gracefully and starts the
// winner only once the victim's pods are gone; a node turning NotReady
// requeues its task onto another node.
func TestKwokCluster(t *testing.T) {
	kc := kubetest.Start(t)
	c := kc.Client
	kc.StartKwok(t, "../../deploy/kwok/stages.yaml")
	for i := range 8 {
		kc.CreateNode(t, kubetest.GPUNode(fmt.Sprintf("kwok-%d", i), "ml.p5.48xlarge", 8, layerLabels(i), false))
	}
	kubeconfig, _ := shippedManifest(t, kc)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(kwokCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	ckptRoot := filepath.Join(dir, "checkpoints")
	addr, _ := startKubeServer(t, dir, cfg, kubeconfig, func(o *serverOptions) {
		o.checkpoints = kube.Checkpoints{Claim: "checkpoints", Root: ckptRoot, Every: 100 * time.Millisecond}
	})
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	s := &serverProc{t: t, url: "http://" + addr, token: strings.TrimSpace(string(tok))}

	// kwok marks the nodes Ready; taskgov sees them with their labels.
	waitFor(t, 60*time.Second, func() bool {
		var out struct{ Nodes []apitypes.Node }
		_, _ = s.call("GET", "/api/v1/nodes", nil, &out)
		healthy := 0
		for _, n := range out.Nodes {
			if n.Healthy && n.Labels["topology.k8s.aws/network-node-layer-3"] != "" {
				healthy++
			}
		}
		return healthy == 8
	})
	submit := func(body map[string]any) {
		t.Helper()
		body["team"], body["instanceType"] = "research", "ml.p5.48xlarge"
		if code, err := s.call("POST", "/api/v1/tasks", body, nil); err != nil || code != 201 {
			t.Fatalf("submit %v: %d %v", body["name"], code, err)
		}
	}
	running := func(n int) func([]corev1.Pod) bool {
		return func(ps []corev1.Pod) bool {
			for _, p := range ps {
				if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
					return false
				}
			}
			return len(ps) == n
		}
	}
	state := func(name string) apitypes.Task {
		var task apitypes.Task
		_, _ = s.call("GET", "/api/v1/tasks/"+name, nil, &task)
		return task
	}

	// A pod taskgov does not manage (a DaemonSet's, say) lands on an idle
	// node after it joined: taskgov offers that node 2 GPUs fewer.
	agent := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "gpu-agent", Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: "kwok-7", Containers: []corev1.Container{{Name: "agent", Image: "agent",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{kube.ResourceGPU: apiresource.MustParse("2")},
				Limits: corev1.ResourceList{kube.ResourceGPU: apiresource.MustParse("2")}}}}}}
	if _, err := c.CoreV1().Pods("default").Create(context.Background(), agent, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gpusOf := func(node string) int64 {
		var out struct{ Nodes []apitypes.Node }
		_, _ = s.call("GET", "/api/v1/nodes", nil, &out)
		for _, n := range out.Nodes {
			if n.Name == node {
				return n.GPUs
			}
		}
		return -1
	}
	waitFor(t, 30*time.Second, func() bool { return gpusOf("kwok-7") == 6 })
	zero := int64(0)
	if err := c.CoreV1().Pods("default").Delete(context.Background(), "gpu-agent", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, func() bool { return gpusOf("kwok-7") == 8 })
	t0 := time.Now()
	t.Logf("nodes discovered: %.1fs", time.Since(t0).Seconds())
	// A gang that requires one layer-2 domain runs there, as placed.
	submit(map[string]any{"name": "gang", "nodes": 4, "priority": "training", "command": []string{"torchrun", "train.py"},
		"requiredTopology": "topology.k8s.aws/network-node-layer-2", "env": map[string]string{"KWOK_RUN_FOR": "3s"}})
	pods := waitPods(t, c, "gang", running(4))
	t.Logf("gang running: %.1fs", time.Since(t0).Seconds())
	planned := map[string]bool{}
	for _, p := range state("gang").Placement {
		planned[p.Node] = true
	}
	domains := map[string]bool{}
	for _, p := range pods {
		n, _ := c.CoreV1().Nodes().Get(context.Background(), p.Spec.NodeName, metav1.GetOptions{})
		domains[n.Labels["topology.k8s.aws/network-node-layer-2"]] = true
		if !planned[p.Spec.NodeName] {
			t.Fatalf("pod %s runs on %s, which the core did not plan (%v)", p.Name, p.Spec.NodeName, planned)
		}
	}
	if len(domains) != 1 {
		t.Fatalf("the gang spans layer-2 domains %v", domains)
	}
	waitFor(t, 60*time.Second, func() bool { return state("gang").State == "Succeeded" })

	// Preemption: inference takes a node from a full-cluster training job,
	// which is deleted gracefully and requeued; inference starts only after
	// the victim's pods are gone (kwok takes 2 s to stop them).
	submit(map[string]any{"name": "train", "nodes": 8, "priority": "training", "command": []string{"train"},
		"gracePeriodSeconds": 45, "env": map[string]string{"KWOK_STOP_FOR": "2s"}})
	t.Logf("gang done: %.1fs", time.Since(t0).Seconds())
	victims := waitPods(t, c, "train", running(8))
	// train saves a checkpoint on the shared checkpoint storage; taskgov
	// learns of it from the marker, so the preemption below loses only the
	// work since then.
	if err := os.MkdirAll(filepath.Join(ckptRoot, "hyperpod-ns-research", "train"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ckptRoot, "hyperpod-ns-research", "train", kube.CheckpointMarker), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, func() bool { return !state("train").CheckpointAt.IsZero() })
	t.Logf("train running: %.1fs; infer submitted at %s", time.Since(t0).Seconds(), time.Now().Format("15:04:05"))
	submit(map[string]any{"name": "infer", "priority": "inference", "command": []string{"serve"}})
	deleting := waitPods(t, c, "train", func(ps []corev1.Pod) bool {
		for _, p := range ps {
			if p.DeletionTimestamp == nil {
				return false
			}
		}
		return len(ps) == 8
	})
	if g := deleting[0].DeletionGracePeriodSeconds; g == nil || *g != 45 {
		t.Fatalf("victim deleted with grace %v, want the task's 45 s", g)
	}
	if ps := taskPods(t, c, "infer"); len(ps) != 0 {
		t.Fatalf("infer's pod exists while the victim's pods are still stopping")
	}
	infer := waitPods(t, c, "infer", running(1))[0]
	t.Logf("infer running: %.1fs; victims deleted at %s, infer created at %s", time.Since(t0).Seconds(),
		deleting[0].DeletionTimestamp.Add(-45*time.Second).Format("15:04:05"), infer.CreationTimestamp.Format("15:04:05"))
	if ps := taskPods(t, c, "train"); len(ps) != 0 {
		t.Fatalf("infer started while %d of train's pods were left", len(ps))
	}
	if tr := state("train"); tr.State != "Pending" || !strings.Contains(tr.Message, "preempted") {
		t.Fatalf("the victim after preemption: %s %q", tr.State, tr.Message)
	}
	_ = victims
	if code, err := s.call("POST", "/api/v1/tasks/train/cancel", nil, nil); err != nil || code != 200 {
		t.Fatalf("cancel train: %d %v", code, err)
	}

	// A node failure: kwok turns infer's node NotReady; taskgov requeues
	// infer and starts it again on another node.
	n, err := c.CoreV1().Nodes().Get(context.Background(), infer.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Labels["kwok.taskgov.io/not-ready"] = "true"
	if _, err := c.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	again := waitPods(t, c, "infer", func(ps []corev1.Pod) bool { return running(1)(ps) && ps[0].Name != infer.Name })[0]
	t.Logf("infer moved: %.1fs; created at %s", time.Since(t0).Seconds(), again.CreationTimestamp.Format("15:04:05"))
	if again.Spec.NodeName == infer.Spec.NodeName {
		t.Fatalf("infer restarted on its NotReady node %s", again.Spec.NodeName)
	}
	if got := state("infer"); got.State != "Running" || got.Resumes != 1 {
		t.Fatalf("infer after its node failed: %s, resumes %d", got.State, got.Resumes)
	}
}
