package engine

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/model"
)

const harnessCluster = `
nodeGroups:
  - {name: p5, instanceType: ml.p5.48xlarge, count: 4}
policy:
  taskPrioritization: TaskRanking
  priorityClasses: [{name: inference, weight: 90}, {name: training, weight: 70}]
teams:
  - {name: a, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
  - {name: b, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}
`

type harness struct {
	t  *testing.T
	e  *Engine
	st *fakeStore
	x  *fakeExec
	// afterStep, if set, runs after each of randomSteps' inputs once the
	// engine is quiet.
	afterStep func()
}

func newHarness(t *testing.T) *harness { return newHarnessWith(t, harnessCluster, nil) }

// newHarnessWith starts an engine on the cluster file yaml, with the clock
// now (the real one if nil).
func newHarnessWith(t *testing.T, yaml string, now func() time.Time) *harness {
	t.Helper()
	return newHarnessRetry(t, yaml, now, time.Millisecond)
}

// newHarnessRetry is newHarnessWith with how long writes are refused after
// a fault before the engine tries again.
func newHarnessRetry(t *testing.T, yaml string, now func() time.Time, retry time.Duration) *harness {
	t.Helper()
	var c model.Cluster
	if err := config.Decode([]byte(yaml), &c); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, st: newFakeStore(), x: newFakeExec()}
	e, err := Open(context.Background(), Options{Store: h.st, Executor: h.x, Cluster: &c, Now: now,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), RetryEvery: retry, ProbeEvery: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h.e = e
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	})
	return h
}

func (h *harness) submit(name, team string, nodes int) error {
	_, err := h.e.Submit(context.Background(), "test", model.TaskSpec{Name: name, Team: team, InstanceType: "ml.p5.48xlarge",
		Nodes: nodes, Command: []string{"true"}})
	return err
}

// quiesce waits until every executor call has run and its result has been
// applied, so that the engine's state stands still.
func (h *harness) quiesce() {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	quiet := 0
	for quiet < 2 {
		if time.Now().After(deadline) {
			h.t.Fatal("the engine did not settle within 5 s (a hang?)")
		}
		_, err := h.e.do(context.Background(), nil, func(*writes) (any, error) { return nil, nil })
		if err != nil && !errors.Is(err, ErrUnavailable) {
			h.t.Fatalf("barrier: %v", err)
		}
		if h.e.actors.busy.Load() == 0 && len(h.e.internal) == 0 && len(h.x.events) == 0 {
			quiet++
		} else {
			quiet = 0
			time.Sleep(time.Millisecond)
		}
	}
}

// waitReady waits until writes succeed again.
func (h *harness) waitReady() {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !h.e.Health().Ready {
		if time.Now().After(deadline) {
			h.t.Fatalf("not ready again: %+v", h.e.Health())
		}
		time.Sleep(2 * time.Millisecond)
	}
	h.quiesce()
}

// checkRecoveryEqualsLive rebuilds the state from the store, as recovery
// after a failed commit does, and compares it with the live engine: task
// records, the core's view of every task, nodes' free capacity, and the
// submission sequence. It also checks the core's invariants, and that every
// task whose pods run is known to the engine as running or stopping, and
// that the published View equals the live state.
func (h *harness) checkRecoveryEqualsLive(step string) {
	h.t.Helper()
	e := h.e
	_, _ = e.View().Waiting() // built by the loop, before the lock is taken
	e.mu.RLock()
	defer e.mu.RUnlock()
	r := &Engine{store: h.st, now: e.now, sched: e.sched}
	if err := r.rebuild(context.Background()); err != nil {
		h.t.Fatalf("%s: rebuild from the store: %v", step, err)
	}
	if len(r.records) != len(e.records) {
		h.t.Fatalf("%s: %d live records in memory, %d stored", step, len(e.records), len(r.records))
	}
	for name, live := range e.records {
		got := r.records[name]
		if got == nil || !reflect.DeepEqual(norm(*live), norm(*got)) {
			h.t.Fatalf("%s: task %s in memory\n%+v\nstored\n%+v", step, name, norm(*live), got)
		}
		a, _ := e.sched.Task(name)
		b, ok := r.sched.Task(name)
		if !ok || a.State != b.State || a.Resumes != b.Resumes || a.Retries != b.Retries || a.Spec.Priority != b.Spec.Priority ||
			!a.CheckpointAt.Equal(b.CheckpointAt) {
			h.t.Fatalf("%s: core's view of %s live %+v, rebuilt %+v", step, name, a, b)
		}
	}
	ln, rn := e.sched.Nodes(), r.sched.Nodes()
	for i := range ln {
		if ln[i].Free != rn[i].Free || ln[i].Schedulable != rn[i].Schedulable || ln[i].Spec.Unschedulable != rn[i].Spec.Unschedulable {
			h.t.Fatalf("%s: node %s live %+v, rebuilt %+v", step, ln[i].Spec.Name, ln[i], rn[i])
		}
	}
	if !reflect.DeepEqual(e.sched.Teams(), r.sched.Teams()) {
		h.t.Fatalf("%s: teams live %+v, stored %+v", step, e.sched.Teams(), r.sched.Teams())
	}
	if e.seq != r.seq {
		h.t.Fatalf("%s: sequence live %d, stored %d", step, e.seq, r.seq)
	}
	if err := e.sched.CheckInvariants(); err != nil {
		h.t.Fatalf("%s: %v", step, err)
	}
	for _, task := range h.x.running() {
		if e.runs[task] == nil {
			h.t.Fatalf("%s: %s's pods run but the engine does not know it", step, task)
		}
	}
	h.checkViewEqualsLive(step)
}

func norm(r model.TaskRecord) model.TaskRecord {
	if len(r.PGIDs) == 0 {
		r.PGIDs = nil
	}
	if len(r.Placement) == 0 {
		r.Placement = nil
	}
	return r
}
