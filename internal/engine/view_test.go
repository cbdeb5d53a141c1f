package engine

import (
	"context"
	"fmt"
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
	release, done := stallStep(t, h)
	defer release()
	readPromptly(t, "during a long apply phase", func() error {
		if v := h.e.View(); v != before {
			return fmt.Errorf("a new View (step %d) was published mid-step", v.Step())
		}
		return expectPriority(h, "")
	})
	release()
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
	if err := h.submit("small", "a", 1); err != nil {
		t.Fatal(err)
	}
	if err := h.submit("big", "b", 4); err != nil {
		t.Fatal(err)
	}
	h.quiesce()
	release, done := stallStep(t, h)
	defer release()
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
	release()
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

// stallStep starts a step that changes big's priority to inference in
// memory, then stalls holding the core until release is called (a long
// step). It returns once the step has stalled; done has the step's result.
// Call release in a defer too: a failed check must not leave the loop stuck.
func stallStep(t *testing.T, h *harness) (release func(), done <-chan error) {
	t.Helper()
	entered, stall := make(chan struct{}), make(chan struct{})
	var once sync.Once
	res := make(chan error, 1)
	go func() {
		_, err := h.e.do(context.Background(), nil, func(w *writes) (any, error) {
			if err := h.e.sched.SetPriority("big", "inference"); err != nil {
				return nil, err
			}
			r := h.e.edit("big") // the View's record is shared: never changed in place
			r.Spec.Priority = "inference"
			h.e.persist(r, w)
			close(entered)
			<-stall
			return nil, nil
		})
		res <- err
	}()
	<-entered
	return func() { once.Do(func() { close(stall) }) }, res
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
