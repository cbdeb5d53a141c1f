package main

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
	"github.com/taskgov/taskgov/internal/testwait"
)

// workloadsCluster: one team, three classes; its 8 nodes (two layer-3
// domains of 4) passed HyperPod's deep health check.
const workloadsCluster = `
policy:
  taskPrioritization: TaskRanking
  preemption: Immediate # the test shows a preemption at once
  priorityClasses: [{name: inference, weight: 90}, {name: training, weight: 70}, {name: fine-tuning, weight: 50}]
teams:
  - {name: research, preemptTeamTasks: LowerPriority, quotas: [{instanceType: ml.p5.48xlarge, count: 8}]}
`

func domainLabels(i int) map[string]string {
	return map[string]string{
		"topology.k8s.aws/network-node-layer-1":            "nn-1",
		"topology.k8s.aws/network-node-layer-2":            "nn-2-" + string(rune('a'+i/4)),
		"topology.k8s.aws/network-node-layer-3":            "nn-3-" + string(rune('a'+i/4)),
		"sagemaker.amazonaws.com/deep-health-check-status": "Passed",
	}
}

// jobVariant is testdata/job.yaml renamed, with another priority class,
// pod count and kwok env, and no topology annotation.
func jobVariant(t *testing.T, name, class string, pods int64, env map[string]string) *unstructured.Unstructured {
	t.Helper()
	u := readObjects(t, "../../internal/kube/testdata/job.yaml")[0]
	u.SetName(name)
	l := u.GetLabels()
	l["kueue.x-k8s.io/priority-class"] = class
	u.SetLabels(l)
	_ = unstructured.SetNestedField(u.Object, pods, "spec", "parallelism")
	_ = unstructured.SetNestedField(u.Object, pods, "spec", "completions")
	_ = unstructured.SetNestedField(u.Object, int64(0), "spec", "backoffLimit")
	unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "annotations")
	cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
	c := cs[0].(map[string]any)
	var ev []any
	for k, v := range env {
		ev = append(ev, map[string]any{"name": k, "value": v})
	}
	c["env"] = ev
	_ = unstructured.SetNestedSlice(u.Object, cs, "spec", "template", "spec", "containers")
	return u
}

// TestKubernetesWorkloads applies the manifests HyperPod users already
// have (internal/kube/testdata, unchanged) to a real kube-apiserver with
// the real Job controller (kube-controller-manager), kwok nodes, the
// shipped admission policies and RBAC, and a taskgov server: a Job is
// created suspended and its pods land, gated then placed, on one layer-3
// domain; a HyperPodPyTorchJob's pods (the test plays its operator) are
// gated at creation and placed as one gang; a higher-priority Job preempts
// a lower one, which is suspended with its grace period and resumes when
// the winner is deleted (cancelled); an unknown queue raises an Event; a
// restart adopts what runs; a Job's completion and failure end their tasks.
func TestKubernetesWorkloads(t *testing.T) {
	kc, dyn := workloadCluster(t, true)
	c := kc.Client
	for i := range 8 {
		kc.CreateNode(t, kubetest.GPUNode("p5-"+string(rune('0'+i)), "ml.p5.48xlarge", 8, domainLabels(i), false))
	}
	s, dir, cfg, kubeconfig, stop := workloadServer(t, kc, workloadsCluster, 8)
	state := func(task string) apitypes.Task {
		var out apitypes.Task
		_, _ = s.call("GET", "/api/v1/tasks/"+task, nil, &out)
		return out
	}
	running := func(u *unstructured.Unstructured, n int) []corev1.Pod {
		t.Helper()
		var ps []corev1.Pod
		deadline := time.Now().Add(60 * time.Second)
		for ; time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			ps = podsOwnedBy(t, kc, u)
			ok := len(ps) == n
			for _, p := range ps {
				ok = ok && p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil
			}
			if ok {
				return ps
			}
		}
		t.Fatalf("%s %s: never %d running pods; pods:\n%s\nobject annotations %v", u.GetKind(), u.GetName(), n, podsWide(ps), getObj(t, dyn, u).GetAnnotations())
		return nil
	}
	// oneDomain checks pods sit on distinct nodes of one layer-3 domain,
	// exactly where the task's placement says.
	oneDomain := func(task string, ps []corev1.Pod) string {
		t.Helper()
		planned := map[string]bool{}
		for _, p := range state(task).Placement {
			planned[p.Node] = true
		}
		domains, nodes := map[string]bool{}, map[string]bool{}
		for _, p := range ps {
			n, _ := c.CoreV1().Nodes().Get(context.Background(), p.Spec.NodeName, metav1.GetOptions{})
			domains[n.Labels["topology.k8s.aws/network-node-layer-3"]] = true
			nodes[p.Spec.NodeName] = true
			if !planned[p.Spec.NodeName] {
				t.Errorf("%s: pod %s on %s, not a node taskgov placed it on (%v)", task, p.Name, p.Spec.NodeName, planned)
			}
		}
		if len(domains) != 1 || len(nodes) != len(ps) {
			t.Errorf("%s: pods span layer-3 domains %v, nodes %v", task, domains, nodes)
		}
		for d := range domains {
			return d
		}
		return ""
	}

	// 1. The Job as HyperPod users write it, applied unchanged: created
	// suspended, then admitted and placed in one layer-3 domain.
	sft := apply(t, dyn, "../../internal/kube/testdata/job.yaml")[0]
	if s, _, _ := unstructured.NestedBool(sft.Object, "spec", "suspend"); !s {
		t.Fatal("the Job was created unsuspended: the admission policy did not hold it")
	}
	sftTask := kube.TaskName(sft)
	sftPods := running(sft, 2)
	d1 := oneDomain(sftTask, sftPods)
	for _, p := range sftPods {
		if p.Labels[kube.LabelTask] != sftTask {
			t.Errorf("pod %s lacks its task label: %v", p.Name, p.Labels)
		}
	}
	t.Logf("kubectl get pods -o wide (Job llama-sft, testdata/job.yaml unchanged):\n%s", podsWide(sftPods))
	if a := getObj(t, dyn, sft).GetAnnotations()[kube.AnnStatus]; !strings.HasPrefix(a, "Running") {
		waitFor(t, 15*time.Second, func() bool { return strings.HasPrefix(getObj(t, dyn, sft).GetAnnotations()[kube.AnnStatus], "Running") })
	}

	// 2. HyperPod's own kind: its operator is not public, so the test
	// creates the pods; each is gated at creation, then placed as a gang.
	hp := apply(t, dyn, "../../internal/kube/testdata/hyperpodpytorchjob.yaml")[0]
	for _, p := range playOperator(t, kc, kube.Kinds[3], hp, nil) {
		if p.Spec.NodeName != "" || len(p.Spec.SchedulingGates) == 0 || p.Spec.SchedulingGates[0].Name != kube.GateAdmission {
			t.Fatalf("pod %s was created ungated: %+v", p.Name, p.Spec.SchedulingGates)
		}
	}
	hpPods := running(hp, 4)
	if d2 := oneDomain(kube.TaskName(hp), hpPods); d2 == d1 {
		t.Errorf("the 4-node gang shares domain %s with the 2-node Job", d1)
	}
	t.Logf("kubectl get pods -o wide (HyperPodPyTorchJob pretrain-70b, testdata/hyperpodpytorchjob.yaml unchanged):\n%s", podsWide(hpPods))

	// 3. A fine-tuning Job takes the last two nodes; an inference Job then
	// preempts it: suspended, pods deleted with their 45 s grace, and the
	// winner's pods placed only once the loser's are gone.
	low := create(t, dyn, jobVariant(t, "low", "fine-tuning-priority", 2, map[string]string{"KWOK_STOP_FOR": "2s"}))
	running(low, 2)
	urgent := create(t, dyn, jobVariant(t, "urgent", "inference-priority", 2, nil))
	overlap, grace := "", map[string]int64{} // the grace each victim was first seen deleted with
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("urgent: %+v", state(kube.TaskName(urgent)))
		}
	})
	waitFor(t, 60*time.Second, func() bool {
		lp, up := podsOwnedBy(t, kc, low), podsOwnedBy(t, kc, urgent)
		for _, p := range lp {
			if _, seen := grace[p.Name]; !seen && p.DeletionTimestamp != nil {
				grace[p.Name] = ptrOr(p.DeletionGracePeriodSeconds) // kwok later ends it at once, as a kubelet would
			}
		}
		for _, p := range up {
			if p.Spec.NodeName != "" && len(lp) > 0 {
				overlap = p.Name + " bound while the preempted Job still had pods"
			}
		}
		n := 0
		for _, p := range up {
			if p.Status.Phase == corev1.PodRunning {
				n++
			}
		}
		return n == 2
	})
	if overlap != "" {
		t.Error(overlap)
	}
	for name, g := range grace {
		if g != 45 {
			t.Errorf("preempted pod %s deleted with grace %d s, want the template's 45 s", name, g)
		}
	}
	if len(grace) != 2 {
		t.Errorf("saw %d of the preempted Job's 2 pods being deleted", len(grace))
	}
	if sus, _, _ := unstructured.NestedBool(getObj(t, dyn, low).Object, "spec", "suspend"); !sus {
		t.Error("the preempted Job is not suspended")
	}
	if st := state(kube.TaskName(low)); st.State != "Pending" {
		t.Errorf("preempted task: %s, want Pending (requeued)", st.State)
	}
	waitFor(t, 20*time.Second, func() bool {
		return strings.HasPrefix(getObj(t, dyn, low).GetAnnotations()[kube.AnnStatus], "Pending: position 1")
	})
	t.Logf("preempted Job's status annotation: %s", getObj(t, dyn, low).GetAnnotations()[kube.AnnStatus])

	// 4. kubectl delete of the winner deletes its task, as the API's
	// DELETE does: cancelled, gone from lists (404), its history kept
	// (?deleted=true); the loser resumes.
	bg := metav1.DeletePropagationBackground
	if err := dyn.Resource(kube.Kinds[0].GVR).Namespace("hyperpod-ns-research").Delete(context.Background(), "urgent", metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
		t.Fatal(err)
	}
	urgentTask := kube.TaskName(urgent)
	waitFor(t, 30*time.Second, func() bool {
		code, _ := s.call("GET", "/api/v1/tasks/"+urgentTask, nil, nil)
		return code == 404
	})
	if listedTask(s, urgentTask, "") {
		t.Error("the task of the Job kubectl deleted is still listed")
	}
	if del, ok := listedDeleted(s, urgentTask); !ok || del.State != "Cancelled" || !strings.Contains(del.Message, "cancelled by kubernetes") {
		t.Errorf("?deleted=true: the deleted task %+v (found %v), want Cancelled by kubernetes", del, ok)
	}
	running(low, 2)
	if st := state(kube.TaskName(low)); st.State != "Running" || st.Resumes != 1 {
		t.Errorf("resumed task: %s after %d resumes, want Running after 1", st.State, st.Resumes)
	}

	// 4b. The API's DELETE of a workload's task: taskgov did not create
	// the Job, so it stays, held, its annotation and the answer say so,
	// and it is not queued again (here, and after the restart in 6).
	kept := create(t, dyn, jobVariant(t, "kept", "training-priority", 1, nil))
	keptTask := kube.TaskName(kept)
	waitFor(t, 30*time.Second, func() bool { return state(keptTask).State == "Pending" })
	var del apitypes.Task
	if code, err := s.call("DELETE", "/api/v1/tasks/"+keptTask, nil, &del); code != 200 || err != nil {
		t.Fatalf("DELETE of the Job's task: %d %v", code, err)
	}
	if !del.Deleted() || !strings.Contains(del.Message, "Job hyperpod-ns-research/kept stays, held") || !strings.Contains(del.Message, "kubectl delete job kept -n hyperpod-ns-research") {
		t.Errorf("DELETE's answer does not say what stays: %+v", del.TaskRecord)
	}
	heldDeleted := func(when string) {
		t.Helper()
		waitFor(t, 20*time.Second, func() bool {
			return strings.HasPrefix(getObj(t, dyn, kept).GetAnnotations()[kube.AnnStatus], "Deleted: ")
		})
		if sus, _, _ := unstructured.NestedBool(getObj(t, dyn, kept).Object, "spec", "suspend"); !sus {
			t.Errorf("%s: the Job whose task was deleted is not held", when)
		}
		if code, _ := s.call("GET", "/api/v1/tasks/"+keptTask, nil, nil); code != 404 || listedTask(s, keptTask, "") {
			t.Errorf("%s: the deleted task answers %d (want 404) or is listed again", when, code)
		}
	}
	heldDeleted("after DELETE")
	t.Logf("status annotation of a Job whose task the API deleted: %s", getObj(t, dyn, kept).GetAnnotations()[kube.AnnStatus])
	// hyp delete says the same, as a note.
	viaHyp := create(t, dyn, jobVariant(t, "via-hyp", "training-priority", 1, nil))
	waitFor(t, 30*time.Second, func() bool { return state(kube.TaskName(viaHyp)).State == "Pending" })
	t.Setenv("TASKGOV_SERVER", s.url)
	t.Setenv("TASKGOV_TOKEN", s.token)
	t.Setenv("TASKGOV_CONFIG", dir+"/cli.yaml")
	hypMode = true
	out, errs, code := cli(t, "delete", "hyp-pytorch-job", "--job-name", kube.TaskName(viaHyp), "-n", "hyperpod-ns-research")
	hypMode = false
	if code != 0 || !strings.Contains(out, "Successful deleted") || !strings.Contains(errs, "note: its Kubernetes Job hyperpod-ns-research/via-hyp stays, held") {
		t.Errorf("hyp delete of a Job's task: exit %d, out %q, err %q; want the note on what stays", code, out, errs)
	}

	// 5. An unknown queue: an Event on the Job with the fix; held, no pods.
	ghost := jobVariant(t, "ghost", "training-priority", 1, nil)
	l := ghost.GetLabels()
	l["kueue.x-k8s.io/queue-name"] = "hyperpod-ns-ghost-localqueue"
	ghost.SetLabels(l)
	ghost = create(t, dyn, ghost)
	waitFor(t, 30*time.Second, func() bool {
		evs, _ := c.CoreV1().Events("hyperpod-ns-research").List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=ghost"})
		for _, e := range evs.Items {
			if e.Reason == "Rejected" && strings.Contains(e.Message, `unknown team "ghost"`) && strings.Contains(e.Message, "hyperpod-ns-<team>-localqueue") {
				t.Logf("Event on Job ghost: %s %s: %s", e.Type, e.Reason, e.Message)
				return true
			}
		}
		return false
	})
	waitFor(t, 10*time.Second, func() bool {
		return strings.HasPrefix(getObj(t, dyn, ghost).GetAnnotations()[kube.AnnStatus], "Rejected: ")
	})
	if sus, _, _ := unstructured.NestedBool(getObj(t, dyn, ghost).Object, "spec", "suspend"); !sus {
		t.Error("the rejected Job is not suspended")
	}
	if ps := podsOwnedBy(t, kc, ghost); len(ps) != 0 {
		t.Errorf("the rejected Job has pods: %s", podsWide(ps))
	}

	// 5b. A team's queue named from outside its namespaces (Kueue's
	// LocalQueues bind the same way): refused, with the fix, and held.
	stray := jobVariant(t, "stray", "training-priority", 1, nil)
	stray.SetNamespace("default")
	stray = create(t, dyn, stray)
	waitFor(t, 30*time.Second, func() bool {
		evs, _ := c.CoreV1().Events("default").List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=stray"})
		for _, e := range evs.Items {
			if e.Reason == "Rejected" && strings.Contains(e.Message, "metadata.namespace") && strings.Contains(e.Message, "create the Job in hyperpod-ns-research") {
				t.Logf("Event on Job default/stray: %s %s: %s", e.Type, e.Reason, e.Message)
				return true
			}
		}
		return false
	})
	if sus, _, _ := unstructured.NestedBool(getObj(t, dyn, stray).Object, "spec", "suspend"); !sus {
		t.Error("a Job naming another namespace's queue is not held")
	}
	if ps := podsOwnedBy(t, kc, stray); len(ps) != 0 {
		t.Errorf("a Job naming another namespace's queue has pods: %s", podsWide(ps))
	}

	// 6. A restart adopts the running workloads: same pods, still running.
	before := map[string]bool{}
	for _, u := range []*unstructured.Unstructured{sft, hp, low} {
		for _, p := range podsOwnedBy(t, kc, u) {
			before[string(p.UID)] = true
		}
	}
	// A pending Job deleted while no server runs: its task is deleted at
	// the restart (it would otherwise wait, and run, for an object gone).
	orphan := create(t, dyn, jobVariant(t, "orphan", "fine-tuning-priority", 1, nil)) // preempts nothing
	orphanTask := kube.TaskName(orphan)
	waitFor(t, 30*time.Second, func() bool { return state(orphanTask).Why != "" })
	stop()
	if err := dyn.Resource(kube.Kinds[0].GVR).Namespace("hyperpod-ns-research").Delete(context.Background(), "orphan", metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
		t.Fatal(err)
	}
	addr, _ := startKubeServer(t, dir, cfg, kubeconfig)
	s.url = "http://" + addr
	time.Sleep(3 * time.Second) // room for a wrong restart of the adopted tasks to show (checked below)
	// The sweep runs once the restarted server leads and has listed the
	// kinds: it is waited for, not assumed done within those 3 s.
	gone := 0
	if err := testwait.Until(30*time.Second, 100*time.Millisecond, func() bool {
		gone, _ = s.call("GET", "/api/v1/tasks/"+orphanTask, nil, nil)
		return gone == 404
	}); err != nil {
		t.Errorf("the task of a Job deleted while the server was stopped answers %d, want 404 (deleted): %v", gone, err)
	}
	if del, ok := listedDeleted(s, orphanTask); !ok || del.State != "Cancelled" || !del.StartedAt.IsZero() {
		t.Errorf("?deleted=true: the orphan's task %+v (found %v), want Cancelled, never started", del.TaskRecord, ok)
	}
	for _, u := range []*unstructured.Unstructured{sft, hp, low} {
		want := map[string]int{"llama-sft": 0, "pretrain-70b": 0, "low": 1}[u.GetName()]
		if st := state(kube.TaskName(u)); st.State != "Running" || st.Resumes != want {
			t.Errorf("%s after the restart: %s after %d resumes (%s), want Running after %d: adopted", u.GetName(), st.State, st.Resumes, st.Message, want)
		}
		for _, p := range podsOwnedBy(t, kc, u) {
			if !before[string(p.UID)] || p.DeletionTimestamp != nil {
				t.Errorf("%s after the restart: pod %s is new or deleted", u.GetName(), p.Name)
			}
		}
	}

	heldDeleted("after the restart")

	// 7. A Job's own end ends its task: success, and failure with the
	// Job's reason on the object.
	if err := dyn.Resource(kube.Kinds[0].GVR).Namespace("hyperpod-ns-research").Delete(context.Background(), "llama-sft", metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
		t.Fatal(err)
	}
	quick := create(t, dyn, jobVariant(t, "quick", "training-priority", 1, map[string]string{"KWOK_RUN_FOR": "1s"}))
	broken := create(t, dyn, jobVariant(t, "broken", "training-priority", 1, map[string]string{"KWOK_RUN_FOR": "1s", "KWOK_EXIT_CODE": "3"}))
	waitFor(t, 60*time.Second, func() bool {
		return state(kube.TaskName(quick)).State == "Succeeded" && state(kube.TaskName(broken)).State == "Failed"
	})
	waitFor(t, 20*time.Second, func() bool {
		return strings.HasPrefix(getObj(t, dyn, broken).GetAnnotations()[kube.AnnStatus], "Failed")
	})
	t.Logf("failed Job's status annotation: %s", getObj(t, dyn, broken).GetAnnotations()[kube.AnnStatus])
}
