package main

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/taskgov/taskgov/internal/kube"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
	"github.com/taskgov/taskgov/internal/model"
)

// A team without quota on a cluster that lends nothing, capped at one
// pending task: every task stays pending.
const workloadCapCluster = `
policy: {borrowUnallocated: false, maxPendingPerTeam: 1, priorityClasses: [{name: training, weight: 70}]}
teams:
  - {name: research, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 0}]}
`

// TestKubernetesWorkloadPendingCap: a Kueue-labelled Job applied while its
// team has maxPendingPerTeam pending tasks is left as an API submission
// past the cap is: no task is made, the Job stays suspended, its status
// annotation and one Warning Event (PendingCap) name the cap and the fix,
// and its looks write no audit entries. A restarted server finds it
// held again (nothing lost), and once the team's pending Job is deleted
// it is submitted like any new workload.
func TestKubernetesWorkloadPendingCap(t *testing.T) {
	kc, dyn := workloadCluster(t, false)
	kc.CreateNode(t, kubetest.GPUNode("p5-0", "ml.p5.48xlarge", 8, domainLabels(0), false))
	s, dir, cfg, kubeconfig, stop := workloadServer(t, kc, workloadCapCluster, 1)
	state := func(u *unstructured.Unstructured) (int, string) {
		var out struct{ State string }
		code, _ := s.call("GET", "/api/v1/tasks/"+kube.TaskName(u), nil, &out)
		return code, out.State
	}
	capEvents := func(u *unstructured.Unstructured) []string {
		evs, _ := kc.Client.CoreV1().Events(u.GetNamespace()).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + u.GetName()})
		var out []string
		for _, e := range evs.Items {
			if e.Reason == "PendingCap" {
				out = append(out, e.Message)
			}
		}
		return out
	}
	first := create(t, dyn, jobVariant(t, "first", "training-priority", 1, nil))
	waitFor(t, 30*time.Second, func() bool { code, st := state(first); return code == 200 && st == "Pending" })
	second := create(t, dyn, jobVariant(t, "second", "training-priority", 1, nil))
	waitExplained(t, 30*time.Second, func() bool { return len(capEvents(second)) > 0 }, func() string { return explainWorkload(t, kc, dyn, s, second) })
	if ev := capEvents(second)[0]; !strings.Contains(ev, "team research has 1 pending tasks") || !strings.Contains(ev, "maxPendingPerTeam 1") ||
		!strings.Contains(ev, "--max-pending-per-team") {
		t.Errorf("the PendingCap Event says %q; want the team, its count, the cap and the fix", ev)
	}
	// The annotation is written after the Event.
	waitFor(t, 30*time.Second, func() bool {
		return strings.HasPrefix(getObj(t, dyn, second).GetAnnotations()[kube.AnnStatus], "Held: ")
	})
	cur := getObj(t, dyn, second)
	if st := cur.GetAnnotations()[kube.AnnStatus]; !strings.HasPrefix(st, "Held: team research has the most pending tasks") || !strings.Contains(st, "maxPendingPerTeam 1") {
		t.Errorf("the held Job's status annotation is %q", st)
	}
	if suspended, _, _ := unstructured.NestedBool(cur.Object, "spec", "suspend"); !suspended {
		t.Error("the Job over the cap is not suspended")
	}
	if code, _ := state(second); code != 404 {
		t.Errorf("the Job over the cap has a task (%d)", code)
	}
	// A restart: the Job is found again, still held, evented once more.
	stop()
	addr, _ := startKubeServer(t, dir, cfg, kubeconfig)
	s.url = "http://" + addr
	waitExplained(t, 60*time.Second, func() bool { return len(capEvents(second)) == 2 }, func() string { return explainWorkload(t, kc, dyn, s, second) })
	if code, _ := state(second); code != 404 {
		t.Errorf("after the restart the Job over the cap has a task (%d)", code)
	}
	// Its looks, before and after the restart, wrote no audit entries
	// (each refused submission would: a team's thousand Jobs over the cap
	// would fill the audit log every few seconds).
	var audit struct{ Entries []model.AuditEntry }
	if code, _ := s.call("GET", "/api/v1/audit", nil, &audit); code != 200 {
		t.Fatalf("audit: %d", code)
	}
	for _, a := range audit.Entries {
		if a.Action == "task.submit" && a.Result != "ok" {
			t.Errorf("a look at the held Job wrote an audit entry: %+v", a)
		}
	}

	// The team drops under the cap: the held Job is submitted.
	bg := metav1.DeletePropagationBackground
	if err := dyn.Resource(kube.Kinds[0].GVR).Namespace(first.GetNamespace()).Delete(context.Background(), first.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
		t.Fatal(err)
	}
	waitExplained(t, 60*time.Second, func() bool { code, st := state(second); return code == 200 && st == "Pending" },
		func() string { return explainWorkload(t, kc, dyn, s, second) })
	waitFor(t, 30*time.Second, func() bool {
		return strings.HasPrefix(getObj(t, dyn, second).GetAnnotations()[kube.AnnStatus], "Pending")
	})
}
