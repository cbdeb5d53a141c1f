package kube

import (
	"errors"
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/taskgov/taskgov/internal/model"
)

func readManifest(t *testing.T, path string) (*Kind, *unstructured.Unstructured) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(b, &u.Object); err != nil {
		t.Fatal(err)
	}
	u.SetUID("3b1c6a1e-0000-4000-8000-000000000001")
	for _, k := range Kinds {
		if k.Name == u.GetKind() {
			return k, u
		}
	}
	t.Fatalf("%s: kind %s is not governed", path, u.GetKind())
	return nil, nil
}

var testMapping = Mapping{Classes: func() []string { return []string{"inference", "training", "fine-tuning"} }}

// Each manifest in testdata is what a HyperPod user already has; the task
// it maps to is what taskgov queues.
func TestMappingManifests(t *testing.T) {
	for _, tc := range []struct {
		file string
		want model.TaskSpec
	}{
		{"job.yaml", model.TaskSpec{Team: "research", Priority: "training", InstanceType: "ml.p5.48xlarge", Nodes: 2,
			PerNode: model.Request{GPUs: 8, VCPU: 0.001, MemoryGiB: 1.0 / 1024}, RequiredTopology: model.LabelLayer3, GracePeriodSeconds: 45}},
		{"hyperpodpytorchjob.yaml", model.TaskSpec{Team: "research", Priority: "training", InstanceType: "ml.p5.48xlarge", Nodes: 4,
			PerNode: model.Request{GPUs: 8, VCPU: 0.001, MemoryGiB: 1.0 / 1024}, RequiredTopology: model.LabelLayer3,
			NodeSelector: map[string]string{LabelDeepHealth: "Passed"}}},
		{"pytorchjob.yaml", model.TaskSpec{Team: "research", Priority: "fine-tuning", InstanceType: "ml.p5.48xlarge", Nodes: 3,
			PerNode: model.Request{GPUs: 4, VCPU: 0.001, MemoryGiB: 1.0 / 1024}, PreferredTopology: model.LabelLayer2}},
		{"jobset.yaml", model.TaskSpec{Team: "research", InstanceType: "ml.g5.12xlarge", Nodes: 4,
			PerNode: model.Request{GPUs: 1, VCPU: 4, MemoryGiB: 16}}},
	} {
		k, u := readManifest(t, "testdata/"+tc.file)
		got, err := testMapping.TaskSpec(k, u)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		tc.want.Name, tc.want.Type = TaskName(u), model.Training
		if got.Name != tc.want.Name || got.Team != tc.want.Team || got.Priority != tc.want.Priority || got.InstanceType != tc.want.InstanceType ||
			got.Nodes != tc.want.Nodes || got.PerNode != tc.want.PerNode || got.RequiredTopology != tc.want.RequiredTopology ||
			got.PreferredTopology != tc.want.PreferredTopology || got.GracePeriodSeconds != tc.want.GracePeriodSeconds ||
			model.SelectorString(got.NodeSelector) != model.SelectorString(tc.want.NodeSelector) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.file, got, tc.want)
		}
		if !model.ValidName(got.Name) || !strings.HasPrefix(got.Name, u.GetName()+"-") {
			t.Errorf("%s: task name %q", tc.file, got.Name)
		}
	}
}

func TestMappingNames(t *testing.T) {
	for q, team := range map[string]string{"hyperpod-ns-research-localqueue": "research", "research": "research", "hyperpod-ns-a-b-localqueue": "a-b"} {
		if got := TeamOfQueue(q); got != team {
			t.Errorf("TeamOfQueue(%q) = %q, want %q", q, got, team)
		}
	}
	m := Mapping{Classes: func() []string { return []string{"training", "batch-priority"} }}
	for in, want := range map[string]string{"training-priority": "training", "training": "training", "batch-priority": "batch-priority", "": ""} {
		if got := m.Class(in); got != want {
			t.Errorf("Class(%q) = %q, want %q", in, got, want)
		}
	}
	u := &unstructured.Unstructured{}
	u.SetName(strings.Repeat("a.b", 30))
	u.SetUID("u1")
	if n := TaskName(u); !model.ValidName(n) {
		t.Errorf("TaskName of a long dotted name = %q, not a DNS label", n)
	}
	other := u.DeepCopy()
	other.SetUID("u2")
	if TaskName(u) == TaskName(other) {
		t.Error("two objects of one name share a task name")
	}
}

// Objects taskgov leaves alone: unlabelled outside team namespaces, and a
// JobSet's child Jobs (governed through the JobSet).
func TestMappingGoverned(t *testing.T) {
	_, u := readManifest(t, "testdata/job.yaml")
	if team, ok := testMapping.Team(u); !ok || team != "research" {
		t.Fatalf("labelled Job: team %q, governed %v", team, ok)
	}
	bare := u.DeepCopy()
	bare.SetLabels(nil)
	if _, ok := testMapping.Team(bare); ok {
		t.Error("a Job without a queue label is governed without TeamOfNamespace")
	}
	byNS := Mapping{TeamOfNamespace: func(ns string) (string, bool) {
		return map[string]string{"hyperpod-ns-research": "research"}[ns], ns == "hyperpod-ns-research"
	}}
	if team, ok := byNS.Team(bare); !ok || team != "research" {
		t.Errorf("TeamOfNamespace: team %q, governed %v", team, ok)
	}
	bare.SetNamespace("default")
	if _, ok := byNS.Team(bare); ok {
		t.Error("an unlabelled Job outside team namespaces is governed")
	}
	child := u.DeepCopy()
	yes := true
	child.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "jobset.x-k8s.io/v1alpha2", Kind: "JobSet", Name: "x", UID: "y", Controller: &yes}})
	if _, ok := testMapping.Team(child); ok {
		t.Error("a JobSet's child Job is governed on its own")
	}
	// A Job that another controller made (a CronJob's) is governed itself.
	cron := u.DeepCopy()
	cron.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: "nightly", UID: "z", Controller: &yes}})
	if team, ok := testMapping.Team(cron); !ok || team != "research" {
		t.Errorf("a CronJob's labelled Job: team %q, governed %v", team, ok)
	}
}

// Bad input names the manifest's field and the fix.
func TestMappingErrors(t *testing.T) {
	k, u := readManifest(t, "testdata/job.yaml")
	noType := u.DeepCopy()
	unstructured.RemoveNestedField(noType.Object, "spec", "template", "spec", "nodeSelector")
	_, err := testMapping.TaskSpec(k, noType)
	if err == nil || !strings.Contains(err.Error(), "add nodeSelector node.kubernetes.io/instance-type") {
		t.Errorf("no instance type: %v", err)
	}
	// Kueue's own samples name no instance type: Kueue gives the job its
	// ClusterQueue's flavor. A team with one type runs it there; with
	// several, the error names them.
	typed := testMapping
	typed.InstanceTypes = func(team string) []string {
		if team == "research" {
			return []string{"ml.p5.48xlarge"}
		}
		return []string{"ml.g5.12xlarge", "ml.p5.48xlarge"}
	}
	if spec, err := typed.TaskSpec(k, noType); err != nil || spec.InstanceType != "ml.p5.48xlarge" || spec.Nodes != 2 {
		t.Errorf("no instance type, a team of one type: %+v, %v", spec, err)
	}
	other := noType.DeepCopy()
	other.SetLabels(map[string]string{LabelQueueName: "hyperpod-ns-vision-localqueue"})
	other.SetNamespace("hyperpod-ns-vision")
	if _, err := typed.TaskSpec(k, other); err == nil || !strings.Contains(err.Error(), "team vision may use several (ml.g5.12xlarge, ml.p5.48xlarge)") {
		t.Errorf("no instance type, a team of two types: %v", err)
	}
	k2, p := readManifest(t, "testdata/pytorchjob.yaml")
	_ = unstructured.SetNestedField(p.Object, "ml.g5.12xlarge", "spec", "pytorchReplicaSpecs", "Worker", "template", "spec", "nodeSelector", LabelInstanceType)
	if _, err := testMapping.TaskSpec(k2, p); err == nil || !strings.Contains(err.Error(), "same node.kubernetes.io/instance-type") {
		t.Errorf("mixed instance types: %v", err)
	}
	me := ManifestError(&model.FieldError{Field: "team", Problem: `unknown team "ghost"`, Fix: "x"})
	var fe *model.FieldError
	if !errors.As(me, &fe) || fe.Field != "metadata.labels[kueue.x-k8s.io/queue-name]" || !strings.Contains(fe.Fix, "hyperpod-ns-<team>-localqueue") {
		t.Errorf("unknown team: %v", me)
	}
	if !errors.Is(me, model.ErrInvalid) {
		t.Error("a manifest error is not ErrInvalid")
	}
}

func TestSuspendPatch(t *testing.T) {
	if got := string(Kinds[1].SuspendPatch(true)); got != `{"spec":{"runPolicy":{"suspend":true}}}` {
		t.Errorf("PyTorchJob suspend patch = %s", got)
	}
}

// A queue label binds only inside its team's namespaces, as a Kueue
// LocalQueue does: a member of another namespace cannot spend a team's
// quota by naming its queue.
func TestQueueLabelBindsInItsTeamsNamespaces(t *testing.T) {
	k, u := readManifest(t, "testdata/job.yaml") // research's queue, in hyperpod-ns-research
	m := testMapping
	m.NamespaceTeams = func() map[string]string {
		return map[string]string{"hyperpod-ns-research": "research", "ml-research": "research", "hyperpod-ns-vision": "vision"}
	}
	if _, err := m.TaskSpec(k, u); err != nil {
		t.Fatalf("the team's own namespace: %v", err)
	}
	own := u.DeepCopy()
	own.SetNamespace("ml-research") // the team's configured namespace
	if _, err := m.TaskSpec(k, own); err != nil {
		t.Fatalf("the team's configured namespace: %v", err)
	}
	for ns, hint := range map[string]string{"hyperpod-ns-vision": "hyperpod-ns-vision-localqueue", "default": ""} {
		other := u.DeepCopy()
		other.SetNamespace(ns)
		_, err := m.TaskSpec(k, other)
		var fe *model.FieldError
		if !errors.As(err, &fe) || fe.Field != "metadata.namespace" || !errors.Is(err, model.ErrInvalid) ||
			!strings.Contains(fe.Fix, "hyperpod-ns-research or ml-research") || !strings.Contains(fe.Fix, hint) {
			t.Errorf("research's queue in %s: %v", ns, err)
		}
	}
	ghost := u.DeepCopy()
	ghost.SetLabels(map[string]string{LabelQueueName: "hyperpod-ns-ghost-localqueue"})
	ghost.SetNamespace("default")
	if _, err := m.TaskSpec(k, ghost); err != nil {
		t.Errorf("an unknown team's queue is the engine's to refuse (unknown team), got %v", err)
	}
}
