package kube

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// TestTemplateLabelOps: the queue label goes onto each pod template that
// lacks it, whatever the template's metadata holds, and onto none that has
// it; a Job's template is the admission policy's.
func TestTemplateLabelOps(t *testing.T) {
	obj := func(s string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(s), &u.Object); err != nil {
			t.Fatal(err)
		}
		return u
	}
	pj := obj(`
spec:
  pytorchReplicaSpecs:
    Master: {template: {spec: {}}}
    Worker: {template: {metadata: {name: w}, spec: {}}}
    Launcher: {template: {metadata: {labels: {app: x}}, spec: {}}}
    Done: {template: {metadata: {labels: {kueue.x-k8s.io/queue-name: q}}, spec: {}}}
`)
	got, _ := json.Marshal(templateLabelOps(kindNamed("PyTorchJob"), pj, "q"))
	want := `[{"op":"add","path":"/spec/pytorchReplicaSpecs/Launcher/template/metadata/labels/kueue.x-k8s.io~1queue-name","value":"q"},` +
		`{"op":"add","path":"/spec/pytorchReplicaSpecs/Master/template/metadata","value":{"labels":{"kueue.x-k8s.io/queue-name":"q"}}},` +
		`{"op":"add","path":"/spec/pytorchReplicaSpecs/Worker/template/metadata/labels","value":{"kueue.x-k8s.io/queue-name":"q"}}]`
	if string(got) != want {
		t.Errorf("PyTorchJob:\n got %s\nwant %s", got, want)
	}
	js := obj(`
spec:
  replicatedJobs:
    - {name: a, template: {spec: {template: {spec: {}}}}}
`)
	got, _ = json.Marshal(templateLabelOps(kindNamed("JobSet"), js, "q"))
	if want := `[{"op":"add","path":"/spec/replicatedJobs/0/template/spec/template/metadata","value":{"labels":{"kueue.x-k8s.io/queue-name":"q"}}}]`; string(got) != want {
		t.Errorf("JobSet:\n got %s\nwant %s", got, want)
	}
	hp := obj(`
spec:
  replicaSpecs:
    - {name: pods, template: {metadata: {labels: {kueue.x-k8s.io/queue-name: q}}}}
`)
	if ops := templateLabelOps(kindNamed("HyperPodPyTorchJob"), hp, "q"); len(ops) != 0 {
		t.Errorf("a labelled template was labelled again: %+v", ops)
	}
	if ops := templateLabelOps(kindNamed("Job"), obj(`{spec: {template: {spec: {}}}}`), "q"); len(ops) != 0 {
		t.Errorf("a Job's template: %+v", ops)
	}
}

func kindNamed(name string) *Kind {
	for _, k := range Kinds {
		if k.Name == name {
			return k
		}
	}
	return nil
}
