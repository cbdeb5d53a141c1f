package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

func nextEvent(t *testing.T, ex *Executor) executor.Event {
	t.Helper()
	select {
	case ev := <-ex.Events():
		return ev
	case <-time.After(20 * time.Second):
		t.Fatal("no pod event within 20 s")
	}
	return executor.Event{}
}

// Against a real API server (no kubelet: the test reports pod status and
// confirms deletions as the kubelet would): a gang's pods are created in the
// team's namespace, bound where the core placed them, carry the rendezvous
// environment, and their exits and graceful deletions come back as events.
func TestExecutorBindsAndReports(t *testing.T) {
	kc := kubetest.Start(t)
	c := kc.Client
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kc.CreateNode(t, p5Node("p5-0", "nn3-a", true, nil))
	kc.CreateNode(t, p5Node("p5-1", "nn3-a", true, nil))
	ex := NewExecutor(c, "busybox")
	if err := ex.Run(ctx); err != nil {
		t.Fatal(err)
	}
	spec := executor.StartSpec{Task: "pretrain", Team: "research", Command: []string{"python3", "train.py"}, Env: map[string]string{"STEPS": "200"},
		ImagePullPolicy: "Never", Pods: []executor.Pod{{Rank: 0, Node: "p5-1", GPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}}, {Rank: 1, Node: "p5-0", GPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}}}}
	if err := ex.Start(spec); err != nil {
		t.Fatal(err)
	}
	ns, err := c.CoreV1().Namespaces().Get(ctx, "hyperpod-ns-research", metav1.GetOptions{})
	if err != nil || ns.Labels[LabelManagedBy] != ManagedByValue {
		t.Fatalf("namespace %v, err %v; want one labelled as taskgov's", ns.Labels, err)
	}
	svc, err := c.CoreV1().Services("hyperpod-ns-research").Get(ctx, "pretrain-run0", metav1.GetOptions{})
	if err != nil || svc.Spec.ClusterIP != corev1.ClusterIPNone || svc.Spec.Selector[LabelRank] != "0" || svc.Spec.Selector[LabelRun] != "0" {
		t.Fatalf("service %+v, err %v; want headless, selecting rank 0 of run 0", svc.Spec, err)
	}
	if o := svc.OwnerReferences; len(o) != 1 || o[0].Kind != "Pod" || o[0].Name != "pretrain-0-run0" {
		t.Fatalf("service owners %+v; want rank 0's pod, so that it goes with it", o)
	}
	for rank, node := range []string{"p5-1", "p5-0"} {
		p, err := c.CoreV1().Pods("hyperpod-ns-research").Get(ctx, "pretrain-"+string(rune('0'+rank))+"-run0", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Spec.NodeName != node || p.Spec.SchedulerName != SchedulerName {
			t.Errorf("rank %d on %q by %q, want %s by %s", rank, p.Spec.NodeName, p.Spec.SchedulerName, node, SchedulerName)
		}
		env := map[string]string{}
		for _, e := range p.Spec.Containers[0].Env {
			env[e.Name] = e.Value
		}
		if env["MASTER_ADDR"] != "pretrain-run0.hyperpod-ns-research.svc" || p.Spec.Subdomain != "pretrain-run0" || env["WORLD_SIZE"] != "2" || env["RANK"] != string(rune('0'+rank)) || env["STEPS"] != "200" {
			t.Errorf("rank %d env %v", rank, env)
		}
		if pp := p.Spec.Containers[0].ImagePullPolicy; pp != corev1.PullNever {
			t.Errorf("rank %d imagePullPolicy %q, want the task's Never", rank, pp)
		}
		if q := p.Spec.Containers[0].Resources.Limits[ResourceGPU]; q.Value() != 8 {
			t.Errorf("rank %d GPU limit %v, want 8", rank, q.String())
		}
	}

	// Rank 0 finishes with exit code 3, as a kubelet would report it.
	p0, _ := c.CoreV1().Pods("hyperpod-ns-research").Get(ctx, "pretrain-0-run0", metav1.GetOptions{})
	p0.Status.Phase = corev1.PodFailed
	p0.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "task", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3}}}}
	if _, err := c.CoreV1().Pods("hyperpod-ns-research").UpdateStatus(ctx, p0, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, ex); ev.Task != "pretrain" || ev.Rank != 0 || !ev.Exited || ev.ExitCode != 3 {
		t.Fatalf("event %+v, want rank 0 exited 3", ev)
	}

	// Stop deletes gracefully: rank 1 stays, terminating, until the kubelet
	// confirms; only then does it report Exited.
	ex.Stop("pretrain", 7*time.Second)
	p1, err := c.CoreV1().Pods("hyperpod-ns-research").Get(ctx, "pretrain-1-run0", metav1.GetOptions{})
	if err != nil || p1.DeletionTimestamp == nil || p1.DeletionGracePeriodSeconds == nil || *p1.DeletionGracePeriodSeconds != 7 {
		t.Fatalf("pod 1 after Stop: %+v err %v; want terminating with a 7 s grace", p1.ObjectMeta, err)
	}
	select {
	case ev := <-ex.Events():
		t.Fatalf("event %+v before the pod was gone", ev)
	case <-time.After(300 * time.Millisecond):
	}
	zero := int64(0)
	if err := c.CoreV1().Pods("hyperpod-ns-research").Delete(ctx, "pretrain-1-run0", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, ex); ev.Rank != 1 || !ev.Exited || ev.ExitCode != -1 {
		t.Fatalf("event %+v, want rank 1 killed", ev)
	}

	// A start that fails part-way (rank 1's pod name is taken) fails and
	// leaves none of its pods behind.
	taken := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "again-1-run0", Namespace: "hyperpod-ns-research"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "x", Image: "busybox"}}}}
	if _, err := c.CoreV1().Pods("hyperpod-ns-research").Create(ctx, taken, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	again := executor.StartSpec{Task: "again", Team: "research", Pods: []executor.Pod{{Rank: 0, Node: "p5-0"}, {Rank: 1, Node: "p5-1"}}}
	if err := ex.Start(again); err == nil || !strings.Contains(err.Error(), "again-1-run0") {
		t.Fatalf("Start = %v, want an error naming the pod", err)
	}
	if _, err := c.CoreV1().Pods("hyperpod-ns-research").Get(ctx, "again-0-run0", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("rank 0 of the failed start is still there: %v", err)
	}
}
