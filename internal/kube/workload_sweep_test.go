package kube

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/taskgov/taskgov/internal/kube/kubetest"
	"github.com/taskgov/taskgov/internal/model"
)

// sweepGov is the engine as sweep sees it: live workload tasks with their
// keys, and a Delete that fails a task's first fails[task] calls (the
// store could not be written).
type sweepGov struct {
	fakeGov
	mu      sync.Mutex
	live    map[string]string
	fails   map[string]int
	deletes map[string]int
}

func (g *sweepGov) WorkloadTasks() map[string]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := map[string]string{}
	for k, v := range g.live {
		out[k] = v
	}
	return out
}

func (g *sweepGov) Delete(_ context.Context, task string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.deletes[task]++
	if g.fails[task] > 0 {
		g.fails[task]--
		return errors.New("the store cannot be written (disk full)")
	}
	if _, ok := g.live[task]; !ok {
		return model.ErrNotFound
	}
	delete(g.live, task)
	return nil
}

func (g *sweepGov) remaining() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var names []string
	for k := range g.live {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// TestSweepPreKeyTasksAndFailedDeletes: the leader's start-up sweep
// deleted only tasks keyed kubernetes.uid.<UID>, so a workload task
// submitted before those keys (no key) whose Job was deleted while no
// leader ran stayed, and ran as an API task; and a delete that failed was
// logged and never tried again. Now a keyless task is matched by its
// name (TaskName hashes the object's UID), and a failed delete is tried
// again until it is done. Real kube-apiserver; the engine is a fake that
// fails on demand.
func TestSweepPreKeyTasksAndFailedDeletes(t *testing.T) {
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
	jobs := Kinds[0]
	g := &sweepGov{live: map[string]string{}, fails: map[string]int{}, deletes: map[string]int{}}
	var kept []string
	for _, n := range []string{"keyed", "pre-key"} {
		_, u := readManifest(t, "testdata/job.yaml")
		u.SetName(n)
		u.SetUID("")
		made, err := dyn.Resource(jobs.GVR).Namespace("hyperpod-ns-research").Create(ctx, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g.live[TaskName(made)] = map[string]string{"keyed": WorkloadKey(made), "pre-key": ""}[n]
		kept = append(kept, TaskName(made))
	}
	// Tasks whose objects are gone: one keyed, two from before keys, one
	// of which fails its first two deletes.
	g.live["gone-keyed-0a1b2c3d"] = workloadKeyPrefix + "7d3c0c4e-0000-4000-8000-000000000001"
	g.live["gone-pre-key-0a1b2c3d"] = ""
	g.live["gone-flaky-0a1b2c3d"] = ""
	g.fails["gone-flaky-0a1b2c3d"] = 2
	SweepRetryWait = 50 * time.Millisecond
	t.Cleanup(func() { SweepRetryWait = time.Second })

	w := &Workloads{dyn: dyn, kinds: []*Kind{jobs}, Log: slog.Default(), gov: g}
	w.sweep(ctx)
	sort.Strings(kept)
	want := strings.Join(kept, ",")
	deadline := time.Now().Add(10 * time.Second)
	for g.remaining() != want {
		if time.Now().After(deadline) {
			t.Fatalf("after the sweep, live tasks %s; want the two whose Jobs exist, %s (deletes tried: %v)", g.remaining(), want, g.deletes)
		}
		time.Sleep(20 * time.Millisecond)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.deletes["gone-flaky-0a1b2c3d"] != 3 {
		t.Errorf("the delete that failed twice was tried %d times; want 3", g.deletes["gone-flaky-0a1b2c3d"])
	}
}
