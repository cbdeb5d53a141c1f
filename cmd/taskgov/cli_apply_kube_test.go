package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Kubernetes manifests shaped as Kueue's task guides write them (a batch
// Job with generateName, a JobSet, a PyTorchJob (here without its queue
// label), a plain Pod, a CronJob, the quick start's queues) and as
// `kubectl get job -o json` prints one.
var kubeManifests = []struct {
	file, body string
	want       []string // in the refusal
}{
	{"sample-job.yaml", `apiVersion: batch/v1
kind: Job
metadata:
  generateName: sample-job-
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  parallelism: 3
  completions: 3
  suspend: true
  template:
    spec:
      containers:
        - name: dummy-job
          image: registry.example/sleep:1
          args: ["10s"]
          resources: {requests: {cpu: 1, memory: 200Mi}}
      restartPolicy: Never
`, []string{`is a Kubernetes Job (batch/v1) "sample-job-*"`, "kubectl create -f", "--executor kubernetes",
		"its label kueue.x-k8s.io/queue-name: user-queue makes it team user-queue's task", "taskgov start-job"}},
	{"sample-jobset.yaml", `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  generateName: sleep-job-
  labels:
    kueue.x-k8s.io/queue-name: hyperpod-ns-team-a-localqueue
    kueue.x-k8s.io/priority-class: training-priority
spec:
  replicatedJobs:
    - name: workers
      replicas: 2
      template:
        spec:
          parallelism: 1
          template:
            spec:
              containers: [{name: sleep, image: busybox, command: [sleep, "100"]}]
`, []string{"is a Kubernetes JobSet (jobset.x-k8s.io/v1alpha2)", "makes it team team-a's task"}},
	{"sample-pytorchjob.yaml", `apiVersion: "kubeflow.org/v1"
kind: PyTorchJob
metadata:
  name: pytorch-simple
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: pytorch, image: registry.example/mnist:1, command: [python3, mnist.py]}]
`, []string{`is a Kubernetes PyTorchJob (kubeflow.org/v1) "pytorch-simple"`, "kubectl create -f",
		"give it the label kueue.x-k8s.io/queue-name: hyperpod-ns-<team>-localqueue"}},
	{"kueue-pod.yaml", `apiVersion: v1
kind: Pod
metadata:
  generateName: kueue-sleep-
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  containers: [{name: sleep, image: busybox, args: ["3s"]}]
  restartPolicy: OnFailure
`, []string{"is a Kubernetes Pod (v1)", "not bare Pods", "under a batch/v1 Job's spec.template"}},
	{"sample-cronjob.yaml", `apiVersion: batch/v1
kind: CronJob
metadata:
  name: sample-cronjob
spec:
  schedule: "* * * * *"
  jobTemplate:
    metadata:
      labels:
        kueue.x-k8s.io/queue-name: hyperpod-ns-team-b-localqueue
    spec:
      template:
        spec:
          containers: [{name: sleep, image: busybox, args: ["30s"]}]
          restartPolicy: Never
`, []string{"is a Kubernetes CronJob (batch/v1)", "makes it team team-b's task"}},
	{"queues.yaml", `# a comment, then three objects
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default-flavor
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cluster-queue
spec:
  namespaceSelector: {}
`, []string{`is a Kubernetes ResourceFlavor (kueue.x-k8s.io/v1beta2) "default-flavor"`, "does not read Kueue's objects", "as a team in a cluster file"}},
	{"job.json", `{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "ünïcode-job", "labels": {"kueue.x-k8s.io/queue-name": "team-b"}},
 "spec": {"parallelism": 99999999999999999999, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}`,
		[]string{`is a Kubernetes Job (batch/v1) "ünïcode-job"`, "makes it team team-b's task"}},
	{"service.yaml", `apiVersion: v1
kind: Service
metadata: {name: web}
`, []string{"is a Kubernetes Service (v1)", "takes a cluster file (nodeGroups, teams, policy)", "apply Kubernetes objects with kubectl"}},
}

// TestApplyRefusesKubernetesManifests: `taskgov apply -f` of a manifest
// from Kueue's guides was read as a cluster file and refused with
// `unknown field "apiVersion" at the top level; allowed there:
// instanceTypes, ...`, which names taskgov's fields but not what the file
// is or where it runs. Each kind is now named with what to do instead
// (exit 2), before anything is applied: a cluster file given first in the
// same command changes nothing either, and no job is submitted.
func TestApplyRefusesKubernetesManifests(t *testing.T) {
	cliServerWith(t, walkthroughCluster)
	dir := t.TempDir()
	before := mustCLI(t, "export", "--format", "taskgov")
	more := filepath.Join(dir, "more.yaml")
	if err := os.WriteFile(more, []byte(strings.Replace(walkthroughCluster, "teams:\n",
		"teams:\n  - {name: team-c, quotas: [{instanceType: ml.g5.12xlarge, count: 1}]}\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range kubeManifests {
		p := filepath.Join(dir, m.file)
		if err := os.WriteFile(p, []byte(m.body), 0o644); err != nil {
			t.Fatal(err)
		}
		errs := mustFail(t, exitInput, p+": ", "apply", "-f", more, "-f", p)
		for _, w := range m.want {
			if !strings.Contains(errs, w) {
				t.Fatalf("apply -f %s: the refusal lacks %q:\n%s", m.file, w, errs)
			}
		}
		if strings.Contains(errs, "unknown field") {
			t.Fatalf("apply -f %s still reads it as a cluster file:\n%s", m.file, errs)
		}
	}
	// The second document of a file is named by its place.
	p := filepath.Join(dir, "second.yaml")
	if err := os.WriteFile(p, []byte(strings.TrimPrefix(walkthroughCluster, "\n")+"---\n"+kubeManifests[0].body), 0o644); err != nil {
		t.Fatal(err)
	}
	mustFail(t, exitInput, p+" (document 2): is a Kubernetes Job", "apply", "-f", p)

	if after := mustCLI(t, "export", "--format", "taskgov"); after != before {
		t.Fatalf("a refused apply changed the teams or policy:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if out := mustCLI(t, "list-jobs", "-A"); strings.Contains(out, "job") {
		t.Fatalf("a refused apply submitted a job:\n%s", out)
	}
	// A cluster file and HyperPod's JSON documents are still applied.
	if out := mustCLI(t, "apply", "-f", more); !strings.Contains(out, "team-c") {
		t.Fatalf("apply -f of a cluster file after the refusals:\n%s", out)
	}
}
