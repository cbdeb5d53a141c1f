package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func manifestDocs(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	for {
		var d map[string]any
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[d["kind"].(string)] = d
	}
	return out
}

// TestPostgresManifest: the PostgreSQL variant runs 3 replicas on 3 nodes
// with the DSN from a Secret and no shared volume, and shares taskgov.yaml's
// namespace, ServiceAccount, RBAC and cluster file word for word.
func TestPostgresManifest(t *testing.T) {
	sqlite := manifestDocs(t, "../../deploy/kubernetes/taskgov.yaml")
	pg := manifestDocs(t, "../../deploy/kubernetes/taskgov-postgres.yaml")
	for _, kind := range []string{"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap"} {
		if !reflect.DeepEqual(sqlite[kind], pg[kind]) {
			t.Errorf("the %s differs between the two manifests", kind)
		}
	}
	if _, ok := pg["PersistentVolumeClaim"]; ok {
		t.Error("the PostgreSQL manifest claims a volume")
	}
	if _, ok := pg["Secret"]; !ok {
		t.Error("no DSN Secret")
	}
	dep := pg["Deployment"]["spec"].(map[string]any)
	if dep["replicas"] != 3 {
		t.Errorf("replicas %v, want 3", dep["replicas"])
	}
	pod := dep["template"].(map[string]any)["spec"].(map[string]any)
	anti := pod["affinity"].(map[string]any)["podAntiAffinity"].(map[string]any)["requiredDuringSchedulingIgnoredDuringExecution"].([]any)
	if len(anti) != 1 || anti[0].(map[string]any)["topologyKey"] != "kubernetes.io/hostname" {
		t.Errorf("anti-affinity: %v", anti)
	}
	var args []string
	for _, a := range pod["containers"].([]any)[0].(map[string]any)["args"].([]any) {
		args = append(args, a.(string))
	}
	joined := strings.Join(args, " ")
	for _, want := range []string{"--store-dsn-file=/etc/taskgov-store/dsn", "--leader-elect", "--advertise-url="} {
		if !strings.Contains(joined, want) {
			t.Errorf("args %q lack %s", joined, want)
		}
	}
	for _, v := range pod["volumes"].([]any) {
		if _, ok := v.(map[string]any)["persistentVolumeClaim"]; ok {
			t.Errorf("a volume is a claim: %v", v)
		}
	}
	c := serverCmd()
	if err := c.ParseFlags(args[1:]); err != nil {
		t.Fatalf("the server refuses the manifest's flags: %v", err)
	}
}
