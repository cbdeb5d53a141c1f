package kube

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	corev1 "k8s.io/api/core/v1"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
	"github.com/taskgov/taskgov/internal/model"
)

// fakeGov is the engine as the workload controller sees it: team
// "research" exists; a deleted running task is cancelled and stopped, as
// the engine's Stop would.
type fakeGov struct {
	mu    sync.Mutex
	w     *Workloads
	tasks map[string]TaskStatus
}

func (g *fakeGov) Submit(_ context.Context, spec model.TaskSpec, _ string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if spec.Team != "research" {
		return &model.FieldError{Field: "team", Problem: fmt.Sprintf("unknown team %q", spec.Team), Fix: "use research"}
	}
	g.tasks[spec.Name] = TaskStatus{State: "Pending", Position: 1, Why: "waiting: the test says so"}
	return nil
}

func (g *fakeGov) Delete(_ context.Context, task string) error {
	g.mu.Lock()
	old, ok := g.tasks[task]
	if !ok || old.Deleted {
		g.mu.Unlock()
		return model.ErrNotFound
	}
	was := old.State
	if !ended(was) {
		old = TaskStatus{State: "Cancelled"}
	}
	old.Deleted = true
	g.tasks[task] = old
	g.mu.Unlock()
	if was == "Running" {
		go g.w.Stop(task, time.Second)
	}
	return nil
}

func (g *fakeGov) Status(_ context.Context, task string) (TaskStatus, bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st, ok := g.tasks[task]
	return st, ok, nil
}

func (g *fakeGov) set(task, state string) {
	g.mu.Lock()
	g.tasks[task] = TaskStatus{State: state}
	g.mu.Unlock()
}

func (g *fakeGov) WorkloadTasks() map[string]string                  { return nil }
func (g *fakeGov) AtPendingCap(string) error                         { return nil }
func (g *fakeGov) Classes() []string                                 { return nil }
func (g *fakeGov) SetPriority(context.Context, string, string) error { return nil }
func (g *fakeGov) TeamNamespaces() map[string]string                 { return nil }

// sizes counts the controller's per-object entries.
func (w *Workloads) sizes() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return fmt.Sprintf("byTask %d uids %d runs %d rejected %d warned %d statusAt %d retry %d",
		len(w.byTask), len(w.uids), len(w.runs), len(w.rejected), len(w.warned), len(w.statusAt), len(w.retry))
}

// The controller's per-object maps hold only what the cluster holds: a
// refused Job's refusal and two pending Jobs' status writes are kept while
// they wait; a task that ended keeps only its name; deleting the objects
// (one of them admitted, with a run) empties every map. Real kube-apiserver;
// the engine is a fake.
func TestWorkloadsForgetDeletedObjects(t *testing.T) {
	kc := kubetest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := kc.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "hyperpod-ns-research"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(kc.Config)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWorkloads(kc.Client, dyn, NewExecutor(kc.Client, "busybox"), ServedKinds(kc.Client))
	gov := &fakeGov{w: w, tasks: map[string]TaskStatus{}}
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	w.Run(ctx, gov)
	jobs := Kinds[0]
	names := map[string]string{}
	for _, n := range []string{"ghost", "a", "b"} {
		_, u := readManifest(t, "testdata/job.yaml")
		u.SetName(n)
		u.SetUID("")
		if n == "ghost" {
			u.SetLabels(map[string]string{LabelQueueName: "hyperpod-ns-ghost-localqueue"})
		}
		made, err := dyn.Resource(jobs.GVR).Namespace("hyperpod-ns-research").Create(ctx, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		names[n] = TaskName(made)
	}
	want := func(s string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for w.sizes() != s {
			if time.Now().After(deadline) {
				t.Fatalf("controller keeps %s, want %s", w.sizes(), s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	want("byTask 3 uids 3 runs 0 rejected 1 warned 0 statusAt 2 retry 1")

	// a is admitted (a run); b ends: only its name is kept.
	gov.set(names["a"], "Running") // the engine records the decision, then starts it
	if err := w.Start(executor.StartSpec{Task: names["a"], Pods: []executor.Pod{{Node: "n0"}}}); err != nil {
		t.Fatal(err)
	}
	gov.set(names["b"], "Succeeded")
	for _, n := range []string{"a", "b"} {
		w.queue.Add(wkey{jobs, "hyperpod-ns-research", n})
	}
	want("byTask 3 uids 3 runs 1 rejected 1 warned 0 statusAt 0 retry 1")

	bg := metav1.DeletePropagationBackground
	for _, n := range []string{"ghost", "a", "b"} {
		if err := dyn.Resource(jobs.GVR).Namespace("hyperpod-ns-research").Delete(ctx, n, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
			t.Fatal(err)
		}
	}
	want("byTask 0 uids 0 runs 0 rejected 0 warned 0 statusAt 0 retry 0")
}
