package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// Workloads shaped as Kueue's guides write them: the LocalQueue user-queue
// in the namespace default, the queue label on the workload only (not on
// its pod templates), no suspend, small CPU requests.
const kueueShapedPyTorchJob = `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: mnist
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: registry.example/mnist:1
              command: ["python3", "mnist.py", "--epochs=1"]
              resources:
                requests: {cpu: 1, memory: 200Mi}
    Worker:
      replicas: 1
      restartPolicy: OnFailure
      template:
        metadata:
          labels: {app: mnist}
        spec:
          containers:
            - name: pytorch
              image: registry.example/mnist:1
              command: ["python3", "mnist.py", "--epochs=1"]
              resources:
                requests: {cpu: 1, memory: 200Mi}
`

const kueueShapedJobSet = `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: sleepers
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  replicatedJobs:
    - name: workers
      replicas: 1
      template:
        spec:
          parallelism: 1
          completions: 1
          template:
            spec:
              containers:
                - name: sleep
                  image: busybox
                  command: ["sleep", "100"]
                  resources:
                    requests: {cpu: 1, memory: 200Mi}
    - name: driver
      template:
        spec:
          parallelism: 1
          completions: 1
          template:
            spec:
              containers:
                - name: sleep
                  image: busybox
                  command: ["sleep", "100"]
                  resources:
                    requests: {cpu: 2, memory: 200Mi}
`

// TestKubernetesKueueShapedOperatorWorkloads: a PyTorchJob and a JobSet
// written as Kueue's guides write them carry the queue label on the
// workload only. Their operators make pods from the pod templates, which
// do not carry it, so the pods were not gated and taskgov, which places
// gated pods only, never placed them (kube-scheduler would have put them
// anywhere). taskgov now holds such a workload before submitting it and
// copies the queue label onto its templates, so that the operator's pods
// are gated and land on the nodes the core chose. The test plays the
// operators (neither runs here), making pods from the templates as they
// are when taskgov has admitted the workload.
func TestKubernetesKueueShapedOperatorWorkloads(t *testing.T) {
	kc, dyn := workloadCluster(t, false)
	for i := range 4 {
		kc.CreateNode(t, kubetest.GPUNode("p5-"+string(rune('0'+i)), "ml.p5.48xlarge", 8, nil, false))
	}
	s, _, _, _, _ := workloadServer(t, kc, `
teams:
  - {name: user-queue, namespace: default, quotas: [{instanceType: ml.p5.48xlarge, count: 4}]}
`, 4)
	dir := t.TempDir()
	for _, tc := range []struct{ file, manifest string }{{"pytorchjob.yaml", kueueShapedPyTorchJob}, {"jobset.yaml", kueueShapedJobSet}} {
		path := filepath.Join(dir, tc.file)
		if err := os.WriteFile(path, []byte(tc.manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		u := apply(t, dyn, path)[0]
		kind := kindNamed(u.GetKind())
		explain := func() string { return explainWorkload(t, kc, dyn, s, u) }
		// Admitted, running, and every template labelled with its queue.
		waitExplained(t, 60*time.Second, func() bool {
			cur := getObj(t, dyn, u)
			if kind.Suspended(cur) || !strings.HasPrefix(cur.GetAnnotations()[kube.AnnStatus], "Running: ") {
				return false
			}
			sets, err := kind.PodSets(cur)
			if err != nil {
				t.Fatal(err)
			}
			for _, ps := range sets {
				if ps.Template.Labels[kube.LabelQueueName] != "user-queue" {
					return false
				}
			}
			return true
		}, explain)
		cur := getObj(t, dyn, u)
		pods := playOperator(t, kc, kind, cur, nil)
		for _, p := range pods {
			if !gatedPod(p) {
				t.Fatalf("%s's pod %s was created without taskgov's gate: %v", u.GetKind(), p.Name, p.Spec.SchedulingGates)
			}
		}
		var ps []corev1.Pod
		waitExplained(t, 60*time.Second, func() bool {
			ps = podsOwnedBy(t, kc, u)
			n := 0
			for _, p := range ps {
				if p.Status.Phase == corev1.PodRunning && p.Spec.NodeName != "" {
					n++
				}
			}
			return n == 2
		}, explain)
		t.Logf("%s %s: %s\n%s", u.GetKind(), u.GetName(), getObj(t, dyn, u).GetAnnotations()[kube.AnnStatus], podsWide(ps))
		status := getObj(t, dyn, u).GetAnnotations()[kube.AnnStatus]
		for _, p := range ps {
			if !strings.Contains(status, p.Spec.NodeName) {
				t.Errorf("pod %s on %s, not on a node taskgov admitted it on (%s)", p.Name, p.Spec.NodeName, status)
			}
		}
	}
	// The worker template's own label is kept beside the queue's.
	pj := readObjects(t, filepath.Join(dir, "pytorchjob.yaml"))[0]
	sets, _ := kindNamed("PyTorchJob").PodSets(getObj(t, dyn, pj))
	for _, ps := range sets {
		if ps.Name == "Worker" && ps.Template.Labels["app"] != "mnist" {
			t.Errorf("the Worker template lost its own label: %v", ps.Template.Labels)
		}
	}
}

func gatedPod(p *corev1.Pod) bool {
	for _, g := range p.Spec.SchedulingGates {
		if g.Name == kube.GateAdmission {
			return true
		}
	}
	return false
}

func kindNamed(name string) *kube.Kind {
	for _, k := range kube.Kinds {
		if k.Name == name {
			return k
		}
	}
	return nil
}
