package engine

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// TestReadsDuringLongStepSeePreviousStep: while a step is in progress, in
// its apply phase (the loop holds the core) or in its commit, reads answer
// at once from the previous step's View: they neither wait for the loop nor
// see the step's uncommitted change. Once the step commits, the caller that
// made the change reads it.
func TestReadsDuringLongStepSeePreviousStep(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if err := h.submit("small", "a", 1); err != nil {
		t.Fatal(err)
	}
	if err := h.submit("big", "b", 4); err != nil { // waits: small holds a node
		t.Fatal(err)
	}
	h.quiesce()
	before := h.e.View()
	if tk, ok := before.Task("big"); !ok || tk.Position == 0 || tk.Spec.Priority != "" {
		t.Fatalf("big before: %+v %v", tk, ok)
	}

	// A long apply phase: the step changes big's priority in memory, then
	// stalls holding the core.
	entered, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	defer releaseOnce.Do(func() { close(release) }) // a failed check must not leave the loop stuck
	done := make(chan error, 1)
	go func() {
		_, err := h.e.do(ctx, nil, func(w *writes) (any, error) {
			if err := h.e.sched.SetPriority("big", "inference"); err != nil {
				return nil, err
			}
			r := h.e.records["big"]
			r.Spec.Priority = "inference"
			h.e.persist(r, w)
			close(entered)
			<-release
			return nil, nil
		})
		done <- err
	}()
	<-entered
	readPromptly(t, "during a long apply phase", func() error {
		if v := h.e.View(); v != before {
			return fmt.Errorf("a new View (step %d) was published mid-step", v.Step())
		}
		return expectPriority(h, "")
	})
	releaseOnce.Do(func() { close(release) })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := expectPriority(h, "inference"); err != nil {
		t.Fatalf("after the step: %v", err)
	}
	if h.e.View().Step() <= before.Step() {
		t.Fatal("no View published after the step")
	}

	// A long commit: the change is made in memory and is being written.
	entered, release2 := make(chan struct{}), make(chan struct{})
	var once, release2Once sync.Once
	defer release2Once.Do(func() { close(release2) })
	hold := func() { once.Do(func() { close(entered); <-release2 }) }
	h.st.onApply.Store(&hold)
	defer h.st.onApply.Store(nil)
	type reply struct {
		r   model.TaskRecord
		err error
	}
	got := make(chan reply, 1)
	go func() {
		r, err := h.e.TaskAction(ctx, "test", "big", ActPriority, "training")
		got <- reply{r, err}
	}()
	<-entered
	readPromptly(t, "during a long commit", func() error { return expectPriority(h, "inference") })
	release2Once.Do(func() { close(release2) })
	rp := <-got
	if rp.err != nil || rp.r.Spec.Priority != "training" {
		t.Fatalf("priority change: %+v %v", rp.r, rp.err)
	}
	if err := expectPriority(h, "training"); err != nil { // the caller reads its own write
		t.Fatalf("right after the call returned: %v", err)
	}
}

// TestQueueReadOfUnbuiltListWaitsForTheStep: a View is published without
// its waiting list (the core builds it on demand, from the state of the
// View's step). A queue read of a View nobody read the queue of yet, made
// while the next step is in progress, cannot have the list built from the
// core, which is mid-step: it waits for that step and answers from the View
// the step publishes, consistent with it.
func TestQueueReadOfUnbuiltListWaitsForTheStep(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if err := h.submit("small", "a", 1); err != nil {
		t.Fatal(err)
	}
	if err := h.submit("big", "b", 4); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	entered, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	defer releaseOnce.Do(func() { close(release) })
	done := make(chan error, 1)
	go func() {
		_, err := h.e.do(ctx, nil, func(w *writes) (any, error) {
			if err := h.e.sched.SetPriority("big", "inference"); err != nil {
				return nil, err
			}
			r := h.e.records["big"]
			r.Spec.Priority = "inference"
			h.e.persist(r, w)
			close(entered)
			<-release
			return nil, nil
		})
		done <- err
	}()
	<-entered
	before := h.e.View()
	if before.wait.isBuilt() {
		t.Fatal("the View's list was built before anyone read it")
	}
	if tk, ok := before.Task("small"); !ok || tk.State != model.StateRunning { // no queue needed: at once
		t.Fatalf("small: %+v %v", tk, ok)
	}
	got := make(chan []apitypes.Task, 1)
	go func() { got <- before.Queue(nil) }()
	time.Sleep(50 * time.Millisecond)
	select {
	case q := <-got:
		t.Fatalf("the queue read answered mid-step: %+v", q)
	default:
	}
	releaseOnce.Do(func() { close(release) })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case q := <-got:
		if len(q) != 1 || q[0].Name != "big" || q[0].Spec.Priority != "inference" {
			t.Fatalf("queue after the step: %+v", q)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the queue read did not answer after the step")
	}
	if err := checkView(h.e.View()); err != nil {
		t.Fatal(err)
	}
}

// expectPriority checks every read path for big's priority and the View's
// own consistency.
func expectPriority(h *harness, want string) error {
	tk, err := h.e.Task(context.Background(), "big")
	if err != nil || tk.Spec.Priority != want || tk.Position == 0 {
		return fmt.Errorf("Task: %+v %v, want priority %q and a position", tk.TaskRecord, err, want)
	}
	q := h.e.Queue(nil)
	if len(q) != 1 || q[0].Name != "big" || q[0].Spec.Priority != want {
		return fmt.Errorf("Queue: %+v, want big at priority %q", q, want)
	}
	page, total := h.e.QueuePage(map[string]bool{"b": true}, 0, 10)
	if total != 1 || len(page) != 1 || page[0].Spec.Priority != want {
		return fmt.Errorf("QueuePage: %+v of %d, want big at priority %q", page, total, want)
	}
	if m := h.e.MetricsSnapshot(); len(m.Pending) != 1 || len(m.Capacity) != 1 || m.Capacity[0].AllocatedGPUs != 8 {
		return fmt.Errorf("metrics: %+v", m)
	}
	if s := h.e.UtilisationSample(time.Now()); len(s) != 1 || s[0].GPUsUsed != 8 {
		return fmt.Errorf("utilisation: %+v", s)
	}
	return checkView(h.e.View())
}

// readPromptly runs read and fails the test if it does not return within 5
// s (it waits for the engine loop) or returns an error.
func readPromptly(t *testing.T, when string, read func() error) {
	t.Helper()
	res := make(chan error, 1)
	go func() { res <- read() }()
	select {
	case err := <-res:
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: a read waited for the engine loop", when)
	}
}

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
// Running; and every node's allocated GPUs are those of the running tasks'
// pods placed on it.
func checkView(v *View) error {
	list, v := v.Waiting()
	for _, w := range list {
		r, ok := v.Record(w.Task)
		if !ok || r.State != model.StatePending {
			return fmt.Errorf("waiting task %s: %+v (live %v)", w.Task, r, ok)
		}
	}
	alloc := map[string]int64{}
	running := 0
	it := v.tasks.Root().Iterator()
	for _, r, ok := it.Next(); ok; _, r, ok = it.Next() {
		if r.State != model.StateRunning {
			continue
		}
		running++
		if p, ok := v.running.Get([]byte(r.Name)); !ok || p != r {
			return fmt.Errorf("running task %s is not in the running set", r.Name)
		}
		for _, p := range r.Placement {
			alloc[p.Node] += int64(len(p.GPUs))
		}
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
