package engine

import (
	"fmt"
	"maps"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestViewConsistentDuringRandomSteps: readers take Views as fast as they
// can while the engine runs random inputs with failing commits (the
// randomized test's sequences); every View they see is one step's state
// (see checkView), and Views only move forward. Run it with -race.
func TestViewConsistentDuringRandomSteps(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			h := newHarness(t)
			stop := make(chan struct{})
			errs := make(chan error, 3)
			var wg sync.WaitGroup
			for range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs <- readViews(h.e, stop)
				}()
			}
			randomSteps(t, h, seed, 40)
			close(stop)
			wg.Wait()
			for range 3 {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func readViews(e *Engine, stop <-chan struct{}) error {
	var last uint64
	for n := 0; ; n++ {
		select {
		case <-stop:
			return nil
		default:
		}
		v := e.View()
		if v.Step() < last {
			return fmt.Errorf("View went back from step %d to %d", last, v.Step())
		}
		last = v.Step()
		if n%2 == 0 {
			_, v = v.Waiting() // half the Views read with their queue, half without
		}
		if err := checkView(v); err != nil {
			return fmt.Errorf("step %d: %w", v.Step(), err)
		}
		_, _ = v.QueuePage(nil, n%3, 2)
		_ = v.Topology()
		_ = e.MetricsSnapshot()
	}
}

// checkView checks that a View is one step's state: every waiting task is
// live and pending; the running set is exactly the live tasks in state
// Running; the pending counts by team (for /metrics) are those of the live
// tasks and of the waiting list; and every node's allocated GPUs are those
// of the running tasks' pods placed on it.
func checkView(v *View) error {
	list, v := v.Waiting()
	listed := map[string]int{}
	for _, w := range list {
		r, ok := v.Record(w.Task)
		if !ok || r.State != model.StatePending {
			return fmt.Errorf("waiting task %s: %+v (live %v)", w.Task, r, ok)
		}
		listed[w.Team]++
	}
	alloc := map[string]int64{}
	running := 0
	pending := map[string]int{}
	var err error
	v.tasks.Each(func(r *model.TaskRecord) bool {
		if r.State == model.StatePending {
			pending[r.Team]++
		}
		if r.State != model.StateRunning {
			return true
		}
		running++
		if p, ok := v.running.Get(r.Name); !ok || p != r {
			err = fmt.Errorf("running task %s is not in the running set", r.Name)
			return false
		}
		for _, p := range r.Placement {
			alloc[p.Node] += int64(len(p.GPUs))
		}
		return true
	})
	if err != nil {
		return err
	}
	if !maps.Equal(pending, v.pending) || v.wait.err == nil && !maps.Equal(listed, v.pending) {
		return fmt.Errorf("pending by team: View counts %v, records %v, list %v", v.pending, pending, listed)
	}
	if running != v.running.Len() {
		return fmt.Errorf("%d running tasks, %d in the running set", running, v.running.Len())
	}
	for _, n := range v.Nodes() {
		if used := n.GPUs - n.FreeGPUs; used != alloc[n.Spec.Name] {
			return fmt.Errorf("node %s: %d GPUs allocated, running tasks' pods hold %d", n.Spec.Name, used, alloc[n.Spec.Name])
		}
	}
	return nil
}

// checkViewEqualsLive: with the engine quiet, the published View equals the
// live state. The caller holds e.mu, and asked for the View's queue before
// (which the loop builds under e.mu).
func (h *harness) checkViewEqualsLive(step string) {
	h.t.Helper()
	e := h.e
	v := e.View()
	if v.wait.isBuilt() {
		if err := checkView(v); err != nil {
			h.t.Fatalf("%s: %v", step, err)
		}
		if !e.waitFresh || !sameList(v.wait.list, e.waiting) {
			h.t.Fatalf("%s: the View's queue is not the core's", step)
		}
	}
	if v.LiveTasks() != len(e.records) {
		h.t.Fatalf("%s: %d live tasks in the View, %d live", step, v.LiveTasks(), len(e.records))
	}
	for name, live := range e.records {
		got, ok := v.Record(name)
		if !ok || !reflect.DeepEqual(norm(*live), norm(got)) {
			h.t.Fatalf("%s: task %s live\n%+v\nin the View\n%+v", step, name, norm(*live), got)
		}
	}
	for what, pair := range map[string][2]any{
		"nodes":    {v.Nodes(), e.sched.Nodes()},
		"usage":    {v.Usage(), e.sched.Usage()},
		"teams":    {v.Teams(), e.sched.Teams()},
		"policy":   {v.Policy(), e.sched.Policy()},
		"topology": {v.Topology(), e.sched.TopologyView()},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			h.t.Fatalf("%s: %s in the View\n%+v\nlive\n%+v", step, what, pair[0], pair[1])
		}
	}
}

// TestViewShowsStarvationHolds: a starvation hold changes nodes (HeldFor)
// without any task record being written; the View still shows it.
func TestViewShowsStarvationHolds(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h := newHarnessWith(t, `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 2}]
policy: {starvationBoundSeconds: 1}
teams:
  - {name: big, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
  - {name: small, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
`, clock)
	e := h.e
	if err := h.submit("s", "small", 1); err != nil {
		t.Fatal(err)
	}
	if err := h.submit("gang", "big", 2); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	holds := e.View().cl.holds
	mu.Lock()
	now = now.Add(5 * time.Second) // past the starvation bound
	mu.Unlock()
	h.quiesce()
	held := 0
	for _, n := range e.View().Nodes() {
		if n.HeldFor == "gang" {
			held++
		}
	}
	if held == 0 || e.View().cl.holds == holds {
		t.Fatalf("no hold in the View: %+v", e.View().Nodes())
	}
	h.checkRecoveryEqualsLive("held")
}
