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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// teamNSCluster: research works in hyperpod-ns-research, vision in its
// configured namespace "cv".
const teamNSCluster = `
policy:
  taskPrioritization: TaskRanking
  priorityClasses: [{name: training, weight: 70}]
teams:
  - {name: research, quotas: [{instanceType: ml.p5.48xlarge, count: 4}]}
  - {name: vision, namespace: cv, quotas: [{instanceType: ml.p5.48xlarge, count: 1}]}
`

// unlabelled strips Kueue's labels from an object and its pod templates.
func unlabelled(u *unstructured.Unstructured) *unstructured.Unstructured {
	u.SetLabels(nil)
	unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "labels")
	if rs, ok, _ := unstructured.NestedSlice(u.Object, "spec", "replicaSpecs"); ok {
		for _, r := range rs {
			unstructured.RemoveNestedField(r.(map[string]any), "template", "metadata", "labels")
		}
		_ = unstructured.SetNestedSlice(u.Object, rs, "spec", "replicaSpecs")
	}
	return u
}

// TestKubernetesTeamNamespaces runs the server with --govern-team-namespaces
// as the manifest's service account (taskgov.yaml and team-namespaces.yaml)
// against a real kube-apiserver, the Job controller, kwok nodes and the
// shipped admission policies: taskgov labels the teams' namespaces (the
// default one and a configured one) and unlabels any other; a Job without
// a queue label in a team's namespace is created suspended and labelled,
// and runs as that team's task; a HyperPodPyTorchJob's and a JobSet's
// unlabelled pods are gated at creation; a Job created before taskgov
// labelled its namespace is suspended, labelled and then placed; an
// unlabelled Job elsewhere is left alone.
func TestKubernetesTeamNamespaces(t *testing.T) {
	kc, dyn := workloadCluster(t, true)
	c := kc.Client
	ctx := context.Background()
	for i := range 5 {
		kc.CreateNode(t, kubetest.GPUNode("p5-"+string(rune('0'+i)), "ml.p5.48xlarge", 8, domainLabels(i), false))
	}
	for _, name := range []string{"cv", "elsewhere"} {
		if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// A namespace someone labelled by hand for a team that does not govern it.
	stray := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "stray", Labels: map[string]string{kube.LabelTeam: "research"}}}
	if _, err := c.CoreV1().Namespaces().Create(ctx, stray, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Applied before taskgov labelled the namespace: nothing holds it.
	early := create(t, dyn, unlabelled(jobVariant(t, "early", "", 1, nil)))
	if s, _, _ := unstructured.NestedBool(early.Object, "spec", "suspend"); s {
		t.Fatal("an unlabelled Job in an unlabelled namespace was suspended at creation")
	}
	waitFor(t, 30*time.Second, func() bool { return len(podsOwnedBy(t, kc, early)) > 0 })

	kubeconfig, _ := shippedManifest(t, kc)
	applyRBAC(t, kc, "../../deploy/kubernetes/team-namespaces.yaml")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(teamNSCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _ := startKubeServer(t, dir, cfg, kubeconfig, func(o *serverOptions) { o.teamNamespaces = true })
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	s := &serverProc{t: t, url: "http://" + addr, token: strings.TrimSpace(string(tok))}
	state := func(u *unstructured.Unstructured) apitypes.Task {
		var out apitypes.Task
		_, _ = s.call("GET", "/api/v1/tasks/"+kube.TaskName(u), nil, &out)
		return out
	}

	// 1. The labels: the teams' namespaces carry their team; no other does.
	waitFor(t, 30*time.Second, func() bool {
		want := map[string]string{"hyperpod-ns-research": "research", "cv": "vision", "elsewhere": "", "stray": "", "default": ""}
		for ns, team := range want {
			n, err := c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			if err != nil || n.Labels[kube.LabelTeam] != team {
				return false
			}
		}
		return true
	})

	// 2. The Job applied before: suspended and labelled by taskgov, its
	// first pod (never bound: no scheduler runs here) deleted by the Job
	// controller, then admitted as research's and placed, gated at creation.
	running := func(u *unstructured.Unstructured, n int) []corev1.Pod {
		t.Helper()
		var ps []corev1.Pod
		deadline := time.Now().Add(60 * time.Second)
		for ; time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			ps = podsOwnedBy(t, kc, u)
			ok := len(ps) == n
			for _, p := range ps {
				ok = ok && p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil && p.Labels[kube.LabelTask] == kube.TaskName(u)
			}
			if ok {
				return ps
			}
		}
		t.Fatalf("%s %s: never %d running pods placed by taskgov; pods:\n%s\nobject: labels %v annotations %v", u.GetKind(), u.GetName(), n, podsWide(ps), getObj(t, dyn, u).GetLabels(), getObj(t, dyn, u).GetAnnotations())
		return nil
	}
	running(early, 1)
	if st := state(early); st.Team != "research" || st.State != "Running" {
		t.Errorf("early: team %q state %s, want research Running", st.Team, st.State)
	}
	if l := getObj(t, dyn, early).GetLabels()[kube.LabelQueueName]; l != "research" {
		t.Errorf("early's queue label: %q, want research", l)
	}

	// The policies see the namespace labels once the API server's
	// namespace cache has them: a dry-run probe comes back suspended.
	probe := unlabelled(jobVariant(t, "probe", "", 1, nil))
	probe.SetNamespace("cv")
	waitFor(t, 30*time.Second, func() bool {
		made, err := dyn.Resource(kube.Kinds[0].GVR).Namespace("cv").Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return false
		}
		sus, _, _ := unstructured.NestedBool(made.Object, "spec", "suspend")
		return sus
	})

	// 3. An unlabelled Job in vision's configured namespace: created
	// suspended with vision's queue on it and its pod template; runs as
	// vision's task.
	cvJob := unlabelled(jobVariant(t, "cv-train", "", 1, nil))
	cvJob.SetNamespace("cv")
	cvJob = create(t, dyn, cvJob)
	sus, _, _ := unstructured.NestedBool(cvJob.Object, "spec", "suspend")
	tl, _, _ := unstructured.NestedString(cvJob.Object, "spec", "template", "metadata", "labels", kube.LabelQueueName)
	if !sus || cvJob.GetLabels()[kube.LabelQueueName] != "vision" || tl != "vision" {
		t.Fatalf("the unlabelled Job in cv was created suspended=%v, labels %v, template label %q: the admission policy did not hold it", sus, cvJob.GetLabels(), tl)
	}
	running(cvJob, 1)
	if st := state(cvJob); st.Team != "vision" {
		t.Errorf("cv-train: team %q, want vision", st.Team)
	}

	// 4. An unlabelled HyperPodPyTorchJob: its operator's pods (the test
	// plays it) carry no label, and are gated and labelled at creation.
	hp := unlabelled(readObjects(t, "../../internal/kube/testdata/hyperpodpytorchjob.yaml")[0])
	_ = unstructured.SetNestedField(hp.Object, map[string]any{}, "metadata", "annotations") // no topology
	rs, _, _ := unstructured.NestedSlice(hp.Object, "spec", "replicaSpecs")
	rs[0].(map[string]any)["replicas"] = int64(2)
	unstructured.RemoveNestedField(rs[0].(map[string]any), "template", "metadata", "annotations")
	_ = unstructured.SetNestedSlice(hp.Object, rs, "spec", "replicaSpecs")
	hp = create(t, dyn, hp)
	for _, p := range playOperator(t, kc, kube.Kinds[3], hp, nil) {
		if p.Spec.NodeName != "" || len(p.Spec.SchedulingGates) != 1 || p.Spec.SchedulingGates[0].Name != kube.GateAdmission || p.Labels[kube.LabelQueueName] != "research" {
			t.Fatalf("pod %s was created with gates %+v, labels %v: want gated, research's queue", p.Name, p.Spec.SchedulingGates, p.Labels)
		}
	}
	running(hp, 2)
	if st := state(hp); st.Team != "research" {
		t.Errorf("HyperPodPyTorchJob: team %q, want research", st.Team)
	}

	// 5. An unlabelled JobSet: taskgov labels (and suspends) it. The test
	// plays the JobSet controller with a child Job whose pod template
	// carries JobSet's jobset-name label; the real Job controller makes its
	// pod, which the policy gates and labels, and taskgov places it as the
	// JobSet's (it places only pods that were gated).
	js := unlabelled(readObjects(t, "../../internal/kube/testdata/jobset.yaml")[0])
	rjs, _, _ := unstructured.NestedSlice(js.Object, "spec", "replicatedJobs")
	rj := rjs[0].(map[string]any)
	rj["replicas"] = int64(1)
	_ = unstructured.SetNestedField(rj, int64(1), "template", "spec", "parallelism")
	_ = unstructured.SetNestedField(rj, int64(1), "template", "spec", "completions")
	_ = unstructured.SetNestedStringMap(rj, map[string]string{"node.kubernetes.io/instance-type": "ml.p5.48xlarge"}, "template", "spec", "template", "spec", "nodeSelector")
	unstructured.RemoveNestedField(rj, "template", "spec", "template", "metadata", "labels")
	_ = unstructured.SetNestedSlice(js.Object, rjs, "spec", "replicatedJobs")
	js = create(t, dyn, js)
	// (It is labelled and suspended in one write, and admitted, hence
	// unsuspended, at once: only the label is left to see.)
	waitFor(t, 30*time.Second, func() bool { return getObj(t, dyn, js).GetLabels()[kube.LabelQueueName] == "research" })
	childSpec, _, _ := unstructured.NestedMap(rj, "template", "spec")
	child := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "batch/v1", "kind": "Job", "spec": childSpec}}
	child.SetName("rl-sweep-workers-0")
	child.SetNamespace("hyperpod-ns-research")
	yes := true
	child.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: js.GetAPIVersion(), Kind: "JobSet", Name: js.GetName(), UID: js.GetUID(), Controller: &yes}})
	_ = unstructured.SetNestedStringMap(child.Object, map[string]string{"jobset.sigs.k8s.io/jobset-name": js.GetName()}, "spec", "template", "metadata", "labels")
	cs, _, _ := unstructured.NestedSlice(child.Object, "spec", "template", "spec", "containers")
	cs[0].(map[string]any)["resources"] = map[string]any{"requests": map[string]any{"nvidia.com/gpu": "1"}, "limits": map[string]any{"nvidia.com/gpu": "1"}}
	_ = unstructured.SetNestedSlice(child.Object, cs, "spec", "template", "spec", "containers")
	child = create(t, dyn, child)
	if s, _, _ := unstructured.NestedBool(child.Object, "spec", "suspend"); s {
		t.Error("the JobSet's child Job was suspended: it is held through its JobSet")
	}
	var jsPods []corev1.Pod
	waitFor(t, 60*time.Second, func() bool {
		jsPods = podsOwnedBy(t, kc, child)
		return len(jsPods) == 1 && jsPods[0].Status.Phase == corev1.PodRunning && jsPods[0].Labels[kube.LabelTask] == kube.TaskName(js) &&
			jsPods[0].Labels[kube.LabelQueueName] == "research"
	})
	if st := state(js); st.Team != "research" || st.State != "Running" {
		t.Errorf("JobSet: team %q state %s, want research Running", st.Team, st.State)
	}

	// 6. Elsewhere, an unlabelled Job is not taskgov's.
	other := unlabelled(jobVariant(t, "other", "", 1, nil))
	other.SetNamespace("elsewhere")
	other = create(t, dyn, other)
	time.Sleep(3 * time.Second)
	got := getObj(t, dyn, other)
	if sus, _, _ := unstructured.NestedBool(got.Object, "spec", "suspend"); sus || got.GetAnnotations()[kube.AnnStatus] != "" || got.GetLabels()[kube.LabelQueueName] != "" {
		t.Errorf("a Job outside the teams' namespaces was touched: suspend %v, labels %v, annotations %v", sus, got.GetLabels(), got.GetAnnotations())
	}
	if code, _ := s.call("GET", "/api/v1/tasks/"+kube.TaskName(other), nil, nil); code != 404 {
		t.Errorf("a Job outside the teams' namespaces has a task (%d)", code)
	}

	// 7. A namespace whose team is gone loses the label.
	if _, err := c.CoreV1().Namespaces().Patch(ctx, "elsewhere", types.MergePatchType, []byte(`{"metadata":{"labels":{"taskgov.io/team":"vision"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, func() bool {
		n, _ := c.CoreV1().Namespaces().Get(ctx, "elsewhere", metav1.GetOptions{})
		return n != nil && n.Labels[kube.LabelTeam] == ""
	})
	t.Logf("kubectl get pods -o wide -n cv (Job cv-train, no queue label):\n%s", podsWide(podsOwnedBy(t, kc, cvJob)))
}
