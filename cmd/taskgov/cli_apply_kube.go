package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/model"
)

// `taskgov apply -f` takes taskgov's cluster file and HyperPod's JSON
// documents. Kueue's guides and HyperPod's docs hand users Kubernetes
// manifests (a Job labelled kueue.x-k8s.io/queue-name, a ClusterQueue),
// and `apply -f` is what they type: such a file is refused before anything
// is applied, naming the object and where it does run, where it was read
// as a cluster file with unknown fields "apiVersion", "kind", ...

// kubeObject is what the refusal names of a Kubernetes object.
type kubeObject struct {
	apiVersion, kind, name string
	labels                 map[string]any
}

// kubeManifestError returns the refusal for the first Kubernetes object
// (a document with apiVersion and kind) in file p's content b, or nil when
// there is none. Content that is not YAML is left to the cluster file's
// and the JSON documents' readers, which say where it breaks.
func kubeManifestError(p string, b []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for doc := 1; ; doc++ {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil
		}
		o, ok := asKubeObject(m)
		if !ok {
			continue
		}
		where := p
		if doc > 1 {
			where = fmt.Sprintf("%s (document %d)", p, doc)
		}
		return &model.FieldError{Field: where,
			Problem: fmt.Sprintf("is a Kubernetes %s (%s)%s, not a cluster file or a HyperPod JSON document", o.kind, o.apiVersion, o.named()),
			Fix:     o.fix()}
	}
}

// asKubeObject reads a document as a Kubernetes object.
func asKubeObject(m map[string]any) (kubeObject, bool) {
	av, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	if av == "" || kind == "" {
		return kubeObject{}, false
	}
	o := kubeObject{apiVersion: av, kind: kind}
	if md, ok := m["metadata"].(map[string]any); ok {
		o.name, _ = md["name"].(string)
		if o.name == "" {
			if g, _ := md["generateName"].(string); g != "" {
				o.name = g + "*"
			}
		}
		o.labels, _ = md["labels"].(map[string]any)
	}
	// A CronJob's queue label is on the Jobs it makes (Kueue's guide).
	if kind == "CronJob" {
		spec, _ := m["spec"].(map[string]any)
		jt, _ := spec["jobTemplate"].(map[string]any)
		jmd, _ := jt["metadata"].(map[string]any)
		o.labels, _ = jmd["labels"].(map[string]any)
	}
	return o, true
}

func (o kubeObject) named() string {
	if o.name == "" {
		return ""
	}
	return fmt.Sprintf(" %q", o.name)
}

// group is the API group of the object's apiVersion ("" for core).
func (o kubeObject) group() string {
	g, _, found := strings.Cut(o.apiVersion, "/")
	if !found {
		return ""
	}
	return g
}

// governed reports whether taskgov governs the object's kind on a
// Kubernetes cluster (kube.Kinds).
func (o kubeObject) governed() bool {
	for _, k := range kube.Kinds {
		if k.Name == o.kind && k.GVR.Group == o.group() {
			return true
		}
	}
	return false
}

// onKubernetes is where a governed workload runs unchanged.
const onKubernetes = "taskgov runs it unchanged where it governs a Kubernetes cluster (taskgov server --executor kubernetes, docs/KUBERNETES.md): `kubectl create -f` it there"

// fix says what to do with the object instead.
func (o kubeObject) fix() string {
	switch {
	case o.group() == "kueue.x-k8s.io":
		return "taskgov does not read Kueue's objects: write each ClusterQueue's nominal quota as a team in a cluster file " +
			"(teams: [{name: T, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}], its cohort's borrowing as the team's lending and borrowLimitPercent) " +
			"and each WorkloadPriorityClass as a policy priority class (policy: {priorityClasses: [{name: training, weight: 70}]}), " +
			"then `taskgov apply -f` that file (docs/KUBERNETES.md, \"Coming from HyperPod or Kueue\")"
	case o.apiVersion == "v1" && o.kind == "Pod":
		return "taskgov governs a team's Jobs, JobSets, PyTorchJobs and HyperPodPyTorchJobs, not bare Pods (Kueue's plain-pod integration): " +
			"put the pod's spec under a batch/v1 Job's spec.template, with the label " + kube.LabelQueueName + " on the Job, and " + onKubernetes
	case o.governed() || (o.group() == "batch" && o.kind == "CronJob"):
		return onKubernetes + "; " + o.queueSentence() +
			"; on a server without Kubernetes submit the job with `taskgov start-job` or `hyp create hyp-pytorch-job`"
	}
	return "`taskgov apply -f` takes a cluster file (nodeGroups, teams, policy) or HyperPod's ComputeQuota and ClusterSchedulerConfig JSON; " +
		"apply Kubernetes objects with kubectl"
}

// queueSentence says which team the object's queue label makes it, or
// that it needs one.
func (o kubeObject) queueSentence() string {
	q, _ := o.labels[kube.LabelQueueName].(string)
	if q == "" {
		return "give it the label " + kube.LabelQueueName + ": hyperpod-ns-<team>-localqueue (or the team's name), which taskgov reads as the team"
	}
	return fmt.Sprintf("its label %s: %s makes it team %s's task", kube.LabelQueueName, q, kube.TeamOfQueue(q))
}
