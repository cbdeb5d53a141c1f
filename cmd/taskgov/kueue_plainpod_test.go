package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// A plain pod as Kueue's plain-pod guide writes one (generateName, the
// queue label, no owner), and one of a pod group.
const kueueShapedPlainPods = `apiVersion: v1
kind: Pod
metadata:
  generateName: kueue-sleep-
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  containers:
    - name: sleep
      image: busybox
      args: ["3s"]
      resources: {requests: {cpu: 1}}
  restartPolicy: OnFailure
---
apiVersion: v1
kind: Pod
metadata:
  generateName: sample-leader-
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
    kueue.x-k8s.io/pod-group-name: sample-group
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "2"
spec:
  containers:
    - name: sleep
      image: busybox
      args: ["3s"]
  restartPolicy: Never
`

// TestKubernetesKueuePlainPodRefused: Kueue's plain pods (a pod with the
// queue label and no owner) and a labelled pod of a Deployment's
// ReplicaSet were created behind taskgov's scheduling gate, and taskgov,
// which admits Jobs, JobSets, PyTorchJobs and HyperPodPyTorchJobs only,
// never placed them: they waited for ever, with no Event saying why. The
// admission policy taskgov-refuse-ungoverned-pods now refuses them at
// creation, naming what to do, and nothing is stored.
func TestKubernetesKueuePlainPodRefused(t *testing.T) {
	kc := kubetest.Start(t)
	dyn := admissionPolicies(t, kc)
	path := filepath.Join(t.TempDir(), "plain-pods.yaml")
	if err := os.WriteFile(path, []byte(kueueShapedPlainPods), 0o644); err != nil {
		t.Fatal(err)
	}
	objs := readObjects(t, path)
	yes := true
	replicaSetPod := objs[0].DeepCopy()
	replicaSetPod.SetGenerateName("web-7d9f8-")
	replicaSetPod.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d9f8", UID: "rs-uid", Controller: &yes}})
	for _, u := range append(objs, replicaSetPod) {
		_, err := dyn.Resource(gvrOf(t, u)).Namespace(u.GetNamespace()).Create(context.Background(), u, metav1.CreateOptions{})
		if err == nil || !strings.Contains(err.Error(), "put the pod's spec under a batch/v1 Job's spec.template") {
			t.Fatalf("creating the pod %s*: %v; want the refusal saying what to do", u.GetGenerateName(), err)
		}
	}
	pods, err := kc.Client.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: kube.LabelQueueName})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 0 {
		t.Fatalf("refused pods were stored: %d", len(pods.Items))
	}
	// The same pod under a Job's template is created, held, as any Job.
	job := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{"name": "kueue-sleep", "namespace": "default", "labels": map[string]any{kube.LabelQueueName: "user-queue"}},
		"spec":     map[string]any{"template": map[string]any{"spec": objs[0].Object["spec"]}}}}
	_ = unstructured.SetNestedField(job.Object, "Never", "spec", "template", "spec", "restartPolicy")
	made := create(t, dyn, job)
	if s, _, _ := unstructured.NestedBool(made.Object, "spec", "suspend"); !s {
		t.Fatalf("the Job wrapping the pod was not created suspended: %v", made.Object["spec"])
	}
}
