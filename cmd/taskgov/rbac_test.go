package main

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
	"github.com/taskgov/taskgov/internal/testwait"
)

// manifestGrants lists "verb resource" for every rule of the shipped
// manifests' ClusterRoles and Role: taskgov.yaml, and team-namespaces.yaml
// (for --govern-team-namespaces).
func manifestGrants(t *testing.T) []string {
	var docs []string
	for _, f := range []string{"taskgov.yaml", "team-namespaces.yaml"} {
		raw, err := os.ReadFile("../../deploy/kubernetes/" + f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, strings.Split(string(raw), "\n---\n")...)
	}
	var out []string
	for _, doc := range docs {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var rules []rbacv1.PolicyRule
		switch o := obj.(type) {
		case *rbacv1.ClusterRole:
			rules = o.Rules
		case *rbacv1.Role:
			rules = o.Rules
		}
		for _, r := range rules {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					out = append(out, v+" "+res)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestRBACEachRuleUsed runs the server as the manifest's service account,
// with leader election, through everything it asks the API server for:
// discovery, a 2-pod gang (namespace, pods, binding, Service), its logs, a
// cancel (delete). From the server's own request counter it checks that no
// request was refused and that every verb the manifest grants was used: the
// RBAC is exactly what taskgov needs. --govern-team-namespaces is on, so
// that team-namespaces.yaml's rules are checked too.
func TestRBACEachRuleUsed(t *testing.T) {
	kc, dyn := workloadCluster(t, false)
	for i := range 2 {
		kc.CreateNode(t, kubetest.GPUNode("kwok-"+string(rune('a'+i)), "ml.p5.48xlarge", 8, nil, false))
	}
	kubeconfig, _ := shippedManifest(t, kc)
	applyRBAC(t, kc, "../../deploy/kubernetes/team-namespaces.yaml")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(kwokCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _ := startKubeServer(t, dir, cfg, kubeconfig, func(o *serverOptions) {
		o.leader = leaderOptions{enabled: true, namespace: "taskgov-system", lease: 3 * time.Second}
		o.teamNamespaces = true // namespaces: list, watch, patch (the label on hyperpod-ns-research)
	})
	s := &serverProc{t: t, url: "http://" + addr}
	waitFor(t, 30*time.Second, func() bool { code, _ := s.call("GET", "/readyz", nil, nil); return code == 200 })
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	s.token = strings.TrimSpace(string(tok))

	body := map[string]any{"name": "gang", "team": "research", "instanceType": "ml.p5.48xlarge", "nodes": 2, "command": []string{"train"}}
	if code, err := s.call("POST", "/api/v1/tasks", body, nil); err != nil || code != 201 {
		t.Fatalf("submit: %d %v", code, err)
	}
	waitPods(t, kc.Client, "gang", func(ps []corev1.Pod) bool {
		return len(ps) == 2 && ps[0].Spec.NodeName != "" && ps[1].Spec.NodeName != ""
	})
	_, _ = s.call("GET", "/api/v1/tasks/gang/logs?rank=0", nil, nil)
	if code, err := s.call("POST", "/api/v1/tasks/gang/cancel", nil, nil); err != nil || code != 200 {
		t.Fatalf("cancel: %d %v", code, err)
	}
	waitPods(t, kc.Client, "gang", func(ps []corev1.Pod) bool { return len(ps) == 0 })

	// Workloads: a HyperPodPyTorchJob whose pods taskgov places (update
	// pods, patch its status annotation); a PyTorchJob and a JobSet it
	// suspends (patch); a Job with an unknown queue (an Event, patch).
	hp := readObjects(t, "../../internal/kube/testdata/hyperpodpytorchjob.yaml")[0]
	_ = unstructured.SetNestedSlice(hp.Object, []any{map[string]any{"name": "pod", "replicas": int64(2), "template": map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"kueue.x-k8s.io/queue-name": "hyperpod-ns-research-localqueue"}},
		"spec": map[string]any{"nodeSelector": map[string]any{"node.kubernetes.io/instance-type": "ml.p5.48xlarge"},
			"containers": []any{map[string]any{"name": "c", "image": "i"}}}}}}, "spec", "replicaSpecs")
	hp.SetAnnotations(nil)
	hp = create(t, dyn, hp)
	playOperator(t, kc, kube.Kinds[3], hp, nil)
	pt := apply(t, dyn, "../../internal/kube/testdata/pytorchjob.yaml")[0]
	js := apply(t, dyn, "../../internal/kube/testdata/jobset.yaml")[0]
	ghost := jobVariant(t, "ghost", "training-priority", 1, nil)
	ghost.SetLabels(map[string]string{"kueue.x-k8s.io/queue-name": "hyperpod-ns-ghost-localqueue"})
	create(t, dyn, ghost)
	waitFor(t, 30*time.Second, func() bool {
		bound := 0
		for _, p := range podsOwnedBy(t, kc, hp) {
			if p.Spec.NodeName != "" {
				bound++
			}
		}
		a, b := getObj(t, dyn, pt), getObj(t, dyn, js)
		ps, _, _ := unstructured.NestedBool(a.Object, "spec", "runPolicy", "suspend")
		jss, _, _ := unstructured.NestedBool(b.Object, "spec", "suspend")
		evs, _ := kc.Client.CoreV1().Events("hyperpod-ns-research").List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=ghost"})
		return bound == 2 && ps && jss && len(evs.Items) > 0
	})
	// Some requests come on their own time (a Lease renewal is an update):
	// the requests are read until every grant has been used or the wait
	// ends (a fixed 1 s sleep stood for that), then checked.
	grants := manifestGrants(t)
	var used map[string]bool
	var requests map[string]float64
	_ = testwait.Until(10*time.Second, 200*time.Millisecond, func() bool {
		requests, used = scrapeRequests(t, s.url, s.token), map[string]bool{}
		for k := range requests {
			f := strings.Fields(k)
			used[f[0]+" "+f[1]] = true
		}
		for _, g := range grants {
			if !used[g] {
				return false
			}
		}
		return true
	})
	for k, n := range requests {
		if f := strings.Fields(k); n > 0 && (f[2] == "401" || f[2] == "403") {
			t.Errorf("the API server refused %q %v times: the manifest lacks a rule", k, n)
		}
	}
	for _, g := range grants {
		if !used[g] {
			t.Errorf("the manifest grants %q, which taskgov never used: drop it", g)
		}
	}
	if t.Failed() {
		t.Logf("used: %v", used)
	}
}
