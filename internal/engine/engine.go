package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/store"
)

// Engine runs the control loop. Build it with Open; stop it with Shutdown.
type Engine struct {
	store *store.Store
	exec  executor.Executor
	now   func() time.Time
	log   *slog.Logger
	obs   Observer

	inbox    chan *op
	internal chan *op // ops the engine sends itself (start results)
	actors   *actors  // run executor calls, in order per task
	quit     chan struct{}
	stopped  chan struct{}
	fatal    error

	mu       sync.RWMutex // guards everything below for readers
	sched    *core.Scheduler
	cluster  model.Cluster
	records  map[string]*store.TaskRecord // live (non-terminal) tasks
	waiting  []model.Waiting
	seq      int64
	runs     map[string]*run // tasks whose pods are running or stopping
	deferred []model.Admission
	subs     map[*Subscription]struct{}
	closing  bool // shutting down: start nothing new
}

// run is the executor-side state of one task's current pods.
type run struct {
	resumes  int // the run's number, as in executor.Event.Run
	alive    int
	nodes    []string
	failed   bool   // a pod exited non-zero
	stopping string // why we stopped it, "" if it ends on its own
}

// op is one input, applied on the loop goroutine under e.mu.
type op struct {
	fn    func(w *writes) (any, error)
	audit *store.AuditEntry
	done  chan result
}

type result struct {
	v   any
	err error
}

// writes collects a batch's store writes and published events.
type writes struct {
	fns    []func(*store.Tx) error
	events []store.Event
	acts   []act
}

// act is an executor call for a task, run by the actors after the batch is
// durable.
type act struct {
	task string
	fn   func()
}

func (w *writes) put(fn func(*store.Tx) error) { w.fns = append(w.fns, fn) }

// actWorkers is how many executor calls may run at once: enough to keep a
// Kubernetes API server busy with pod creates and binds.
const actWorkers = 16

// ErrStopped is returned by calls made after the engine stopped.
var ErrStopped = errors.New("the server is shutting down; retry against the new instance")

// Options configure Open.
type Options struct {
	Store    *store.Store
	Executor executor.Executor
	// Cluster, if set, replaces the stored cluster configuration (nodes,
	// teams, policy); it is required on the first start.
	Cluster *model.Cluster
	Now     func() time.Time
	Log     *slog.Logger
	// KillStrays stops processes a crashed earlier server left behind; it
	// returns how many it stopped.
	KillStrays func() int
	// Observer, if set, is told of every decision (metrics).
	Observer Observer
}

// Observer is told of decisions as the engine applies them.
type Observer interface {
	// Admitted: firstWait is the wait before a task's first run, negative
	// for a resumed or retried run.
	Admitted(team string, borrowed bool, firstWait time.Duration)
	Preempted(reason string, lostGPUSeconds float64)
	Cycle(d time.Duration)
}

type noObserver struct{}

func (noObserver) Admitted(string, bool, time.Duration) {}
func (noObserver) Preempted(string, float64)            {}
func (noObserver) Cycle(time.Duration)                  {}

// Open recovers state from the store, requeues tasks that were running when
// the previous server stopped, and starts the loop.
func Open(ctx context.Context, o Options) (*Engine, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Observer == nil {
		o.Observer = noObserver{}
	}
	e := &Engine{store: o.Store, exec: o.Executor, now: o.Now, log: o.Log, obs: o.Observer,
		inbox: make(chan *op, 4096), internal: make(chan *op, 1024), quit: make(chan struct{}), stopped: make(chan struct{}),
		records: map[string]*store.TaskRecord{}, runs: map[string]*run{}, subs: map[*Subscription]struct{}{},
		actors: newActors(actWorkers)}
	if err := e.recover(ctx, o); err != nil {
		return nil, err
	}
	go e.loop()
	return e, nil
}

// do sends an op to the loop and waits for its durable result.
func (e *Engine) do(ctx context.Context, audit *store.AuditEntry, fn func(w *writes) (any, error)) (any, error) {
	o := &op{fn: fn, audit: audit, done: make(chan result, 1)}
	select {
	case e.inbox <- o:
	case <-e.stopped:
		return nil, ErrStopped
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-o.done:
		return r.v, r.err
	case <-e.stopped:
		return nil, ErrStopped
	}
}

func (e *Engine) loop() {
	defer close(e.stopped)
	timer := time.NewTimer(0) // a first cycle at once: recovery may have requeued tasks
	defer timer.Stop()
	for {
		var batch []*op
		select {
		case <-e.quit:
			return
		case o := <-e.inbox:
			batch = append(batch, o)
		case o := <-e.internal:
			batch = append(batch, o)
		case ev := <-e.exec.Events():
			batch = append(batch, e.execOp(ev))
		case <-timer.C:
		}
		batch = e.drain(batch)
		if err := e.step(batch); err != nil {
			e.fatal = err
			e.log.Error("engine stopped: storage failed", "err", err)
			for _, o := range batch {
				o.done <- result{err: fmt.Errorf("storage failed; the server stopped: %w", err)}
			}
			return
		}
		timer.Reset(e.untilWake())
	}
}

// drain adds whatever else is waiting, up to a bound, to the batch.
func (e *Engine) drain(batch []*op) []*op {
	for len(batch) < 1024 {
		select {
		case o := <-e.inbox:
			batch = append(batch, o)
		case o := <-e.internal:
			batch = append(batch, o)
		case ev := <-e.exec.Events():
			batch = append(batch, e.execOp(ev))
		default:
			return batch
		}
	}
	return batch
}

func (e *Engine) untilWake() time.Duration {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.sched.Dirty() {
		return 0
	}
	wake, ok := e.sched.NextWake()
	if !ok {
		return time.Hour
	}
	return max(min(wake.Sub(e.now()), time.Hour), time.Millisecond)
}

// step applies a batch, runs a cycle, commits everything once, answers, acts.
func (e *Engine) step(batch []*op) error {
	w := &writes{}
	results := make([]result, len(batch))
	e.mu.Lock()
	for i, o := range batch {
		v, err := o.fn(w)
		results[i] = result{v, err}
		if o.audit != nil {
			a := *o.audit
			a.At = e.now()
			a.Result = "ok"
			if err != nil {
				a.Result = "refused: " + err.Error()
			}
			w.put(func(tx *store.Tx) error { return tx.Audit(a) })
		}
	}
	started := time.Now()
	d := e.sched.Schedule(e.now())
	e.obs.Cycle(time.Since(started))
	e.apply(d, w)
	e.waiting = d.Waiting
	e.mu.Unlock()

	if len(w.fns) > 0 {
		err := e.store.Commit(context.Background(), func(tx *store.Tx) error {
			for _, fn := range w.fns {
				if err := fn(tx); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for i, o := range batch {
		if o.done != nil {
			o.done <- results[i]
		}
	}
	e.publish(w.events)
	for _, a := range w.acts {
		e.actors.do(a.task, a.fn)
	}
	return nil
}

// Shutdown stops the loop. Running tasks are stopped with their grace period
// and requeued, so that the next start resumes them from their checkpoints;
// with an executor.Adopter (Kubernetes) they keep running instead, and the
// next start adopts them.
func (e *Engine) Shutdown(ctx context.Context) error {
	_, adopts := e.exec.(executor.Adopter)
	_, err := e.do(ctx, nil, func(w *writes) (any, error) {
		e.closing = true
		if adopts {
			clear(e.runs)
			return nil, nil
		}
		for _, name := range e.runningNames() {
			e.interrupt(name, "requeued at server shutdown; resumes from its last checkpoint", w)
		}
		return nil, nil
	})
	deadline := time.Now().Add(time.Duration(model.DefaultGracePeriodSeconds+5) * time.Second)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	for time.Now().Before(deadline) {
		e.mu.RLock()
		n := len(e.runs)
		e.mu.RUnlock()
		if n == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(e.quit)
	<-e.stopped
	e.actors.close()
	return err
}
