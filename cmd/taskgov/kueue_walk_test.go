package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// kueueSampleJob is a Job written the way Kueue's and HyperPod's guides
// write one: the queue and priority labels, suspend, CPU and memory
// requests, and no nodeSelector (Kueue picks the ClusterQueue's flavor).
const kueueSampleJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: sample-job
  namespace: NS
  labels:
    kueue.x-k8s.io/queue-name: NS-localqueue
    kueue.x-k8s.io/priority-class: training-priority
spec:
  parallelism: 2
  completions: 2
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: dummy
          image: registry.example/agnhost:1
          args: ["entrypoint-tester", "hello", "world"]
          resources:
            requests:
              cpu: 1
              memory: 200Mi
`

// TestKubernetesKueueJobWithoutInstanceType: a Kueue-labelled Job whose
// template names no instance type was refused ("names no instance type")
// and never ran, where Kueue admits it on its ClusterQueue's flavor. It
// now runs on its team's only instance type; a team with quota on two
// types gets the Event naming them.
func TestKubernetesKueueJobWithoutInstanceType(t *testing.T) {
	kc, dyn := workloadCluster(t, true)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "hyperpod-ns-vision"}}
	if _, err := kc.Client.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, n := range []struct{ name, typ string }{{"p5-0", "ml.p5.48xlarge"}, {"p5-1", "ml.p5.48xlarge"}, {"g5-0", "ml.g5.12xlarge"}} {
		gpus := int64(8)
		if i == 2 {
			gpus = 4
		}
		kc.CreateNode(t, kubetest.GPUNode(n.name, n.typ, gpus, nil, false))
	}
	s, _, _, _, _ := workloadServer(t, kc, `
policy:
  priorityClasses: [{name: training, weight: 70}]
teams:
  - {name: research, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
  - {name: vision, quotas: [{instanceType: ml.p5.48xlarge, count: 0}, {instanceType: ml.g5.12xlarge, count: 1}]}
`, 3)
	path := filepath.Join(t.TempDir(), "job.yaml")
	write := func(namespace string) {
		_ = os.WriteFile(path, []byte(strings.ReplaceAll(kueueSampleJob, "NS", namespace)), 0o644)
	}

	write("hyperpod-ns-research")
	job := apply(t, dyn, path)[0]
	task := kube.TaskName(job)
	waitFor(t, 60*time.Second, func() bool {
		ps := podsOwnedBy(t, kc, job)
		running := 0
		for _, p := range ps {
			if p.Status.Phase == corev1.PodRunning && strings.HasPrefix(p.Spec.NodeName, "p5-") {
				running++
			}
		}
		return running == 2
	})
	var got apitypes.Task
	if _, err := s.call("GET", "/api/v1/tasks/"+task, nil, &got); err != nil || got.Spec.InstanceType != "ml.p5.48xlarge" || got.Spec.Priority != "training" {
		t.Fatalf("task of the Job: %+v, %v", got.Spec, err)
	}

	write("hyperpod-ns-vision")
	other := apply(t, dyn, path)[0]
	waitFor(t, 30*time.Second, func() bool {
		return strings.Contains(getObj(t, dyn, other).GetAnnotations()[kube.AnnStatus], "team vision may use several (ml.p5.48xlarge, ml.g5.12xlarge)")
	})
	if ps := podsOwnedBy(t, kc, other); len(ps) != 0 {
		t.Fatalf("the refused Job has pods: %s", podsWide(ps))
	}
}
