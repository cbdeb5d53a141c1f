package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
)

// Store is what the engine needs of its database. The SQLite store
// implements it; tests use a fake that fails on demand.
type Store interface {
	// Apply commits a batch of writes durably, all or none.
	Apply(ctx context.Context, ws []model.Write) error
	Cluster(ctx context.Context) (model.Cluster, bool, error)
	LiveTasks(ctx context.Context) ([]model.TaskRecord, error)
	MaxSeq(ctx context.Context) (int64, error)
	LastEventAt(ctx context.Context) (time.Time, error)
	// PriorUse is the newest task stored under a name, for CheckNameReuse.
	PriorUse(ctx context.Context, name string) (*model.PriorUse, error)
	Task(ctx context.Context, name string) (model.TaskRecord, error)
	// TasksNamed is every task stored under a name, newest first (an
	// idempotency key's task may be an older one).
	TasksNamed(ctx context.Context, name string) ([]model.TaskRecord, error)
	// Probe is a cheap check, without writing, that the database is still
	// the one opened and readable.
	Probe(ctx context.Context) error
}

// Executor is what the engine needs of whatever runs pods (local processes,
// Kubernetes); executor.Executor satisfies it.
type Executor interface {
	Start(spec executor.StartSpec) error
	Stop(task string, grace time.Duration)
	Logs(task string, rank int) (io.ReadCloser, error)
	Handles(task string) []int
	Events() <-chan executor.Event
}

var _ Executor = executor.Executor(nil)

// Engine runs the control loop. Build it with Open; stop it with Shutdown.
type Engine struct {
	store Store
	exec  Executor
	now   func() time.Time
	log   *slog.Logger
	obs   Observer

	inbox    chan *op
	internal chan *op // ops the engine sends itself (start results)
	actors   *actors  // run executor calls, in order per task
	quit     chan struct{}
	stopped  chan struct{}
	fatal    error // why the loop stopped on its own; read after stopped closes

	// Loop-only state for a failed commit (see step and rollback).
	redo       []*op     // facts (pod events, start results) to apply again
	retryAt    time.Time // while degraded: when to try writing again
	retryEvery time.Duration
	undo       undoLog
	stale      bool // a rollback could not reread the store: reread before the next step (stale.go)

	// view is the last committed step's state, for readers (view.go).
	view atomic.Pointer[View]
	// reasons is the last queue listing /metrics counted (pendingcount.go).
	reasons atomic.Pointer[reasonCounts]

	// mu guards what follows against the few readers that are not on the
	// loop (Preview, Health, Shutdown, subscriptions). API reads use view.
	mu      sync.RWMutex
	sched   *core.Scheduler
	cluster model.Cluster
	records map[string]*model.TaskRecord // live (non-terminal) tasks
	// waiting is the core's waiting list, built on demand after a cycle
	// (waitFresh false until then; see serveWaiting in waitindex.go).
	waiting   []model.Waiting
	waitFresh bool
	// waitCrash is the last panic while building the list (panic.go); until
	// waitCrashUntil readers are told the queue cannot be listed instead of
	// another try, and waitPanics (in a row) doubles that pause each time.
	waitCrash      *crash
	waitCrashUntil time.Time
	waitPanics     int
	// waitingOf, if set, builds the waiting list in place of sched.Waiting
	// (tests inject a failure with it).
	waitingOf func(*core.Scheduler) []model.Waiting
	wantWait  chan struct{} // a reader needs the current View's list
	seq       int64
	runs      map[string]*run // tasks whose pods are running or stopping
	deferred  []model.Admission
	subs      map[*Subscription]struct{}
	closing   bool // shutting down: start nothing new
	// fault is the last write's transient fault, nil when writes succeed;
	// atomic, so that Health (liveness probes) never waits for the loop.
	fault atomic.Pointer[model.Fault]
}

// run is the executor-side state of one task's current pods.
type run struct {
	resumes  int          // the run's number, as in executor.Event.Run
	alive    int          // pods whose exit has not been reported
	exited   map[int]bool // ranks whose exit was reported (an exit reported twice counts once)
	nodes    []string
	failed   bool   // a pod exited non-zero
	stopping string // why we stopped it, "" if it ends on its own
}

// op is one input, applied on the loop goroutine under e.mu. An op with a
// done channel has a caller waiting; one without is a fact (a pod event, a
// start result) that must be applied even if its first batch fails.
type op struct {
	fn    func(w *writes) (any, error)
	audit *model.AuditEntry
	done  chan result
	// always: try it even while writes are failing (shutdown).
	always bool
}

type result struct {
	v   any
	err error
}

// writes collects a batch's store writes, published events, executor calls
// and observations; none of them takes effect unless the batch commits.
type writes struct {
	ws     []model.Write
	events []model.Event
	acts   []act
	after  []func() // metrics, once committed
	// queued counts the batch's accepted submissions by team, which the
	// View's pending counts do not hold yet (checkPendingCap).
	queued map[string]int
}

// act is an executor call for a task, run by the actors after the batch is
// durable.
type act struct {
	task string
	fn   func()
}

func (w *writes) put(x model.Write) { w.ws = append(w.ws, x) }

// actWorkers is how many executor calls may run at once: enough to keep a
// Kubernetes API server busy with pod creates and binds.
const actWorkers = 16

// ErrStopped is returned by calls made after the engine stopped.
var ErrStopped = errors.New("the server is shutting down; retry against the new instance")

// ErrUnavailable is wrapped when a write could not be stored (disk full,
// database busy): nothing changed, and the call may be retried later.
var ErrUnavailable = errors.New("storage is failing; nothing was changed")

// ErrUnconfirmed is an ErrUnavailable whose commit timed out: the database
// may still have applied it (PostgreSQL runs a pipelined COMMIT it received
// before it stalled), so the caller must not be told nothing changed. The
// engine rereads its state from the store either way, so what it serves
// next is what was stored.
var ErrUnconfirmed = fmt.Errorf("%w (unless the database applied it late: the commit timed out)", ErrUnavailable)

// Options configure Open.
type Options struct {
	Store    Store
	Executor Executor
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
	// ProbeEvery is how often the loop checks the database file while
	// idle (default 2 s).
	ProbeEvery time.Duration
	// RetryEvery is how long, after a failed write, callers are refused
	// before the engine tries to write again (default 1 s).
	RetryEvery time.Duration
}

// Observer is told of decisions as the engine applies them.
type Observer interface {
	// Admitted: firstWait is the wait before a task's first run, negative
	// for a resumed or retried run.
	Admitted(team string, borrowed bool, firstWait time.Duration)
	Preempted(reason string, lostGPUSeconds float64)
	Cycle(d time.Duration)
	// Commit: a batch of ops took d to commit durably (one store commit).
	Commit(d time.Duration, ops int)
	// StoreFault counts a failed write or probe by model.FaultKind.
	StoreFault(kind string)
}

type noObserver struct{}

func (noObserver) Admitted(string, bool, time.Duration) {}
func (noObserver) Preempted(string, float64)            {}
func (noObserver) Cycle(time.Duration)                  {}
func (noObserver) Commit(time.Duration, int)            {}
func (noObserver) StoreFault(string)                    {}

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
	if o.ProbeEvery <= 0 {
		o.ProbeEvery = 2 * time.Second
	}
	if o.RetryEvery <= 0 {
		o.RetryEvery = time.Second
	}
	e := &Engine{store: o.Store, exec: o.Executor, now: o.Now, log: o.Log, obs: o.Observer,
		inbox: make(chan *op, 4096), internal: make(chan *op, 1024), wantWait: make(chan struct{}, 1), quit: make(chan struct{}), stopped: make(chan struct{}),
		records: map[string]*model.TaskRecord{}, runs: map[string]*run{}, subs: map[*Subscription]struct{}{},
		actors: newActors(actWorkers), retryEvery: o.RetryEvery}
	if err := e.recover(ctx, o); err != nil {
		e.actors.close()
		return nil, err
	}
	e.publishAll()
	go e.loop(o.ProbeEvery)
	return e, nil
}

// do sends an op to the loop and waits for its durable result.
func (e *Engine) do(ctx context.Context, audit *model.AuditEntry, fn func(w *writes) (any, error)) (any, error) {
	return e.doOp(ctx, &op{fn: fn, audit: audit, done: make(chan result, 1)})
}

// doOp hands o to the loop and waits for its answer. If ctx ends first,
// before the loop took o, nothing changed (ErrUnavailable on a deadline);
// after, o is queued and may still be stored, so the caller gets
// ErrUnconfirmed: an HTTP request is answered before its connection's write
// deadline closes it unanswered (httpapi.Harden); Shutdown's op is waited
// for to its end. o.done is buffered, so
// the loop never waits on a caller that left.
func (e *Engine) doOp(ctx context.Context, o *op) (any, error) {
	select {
	case e.inbox <- o:
	case <-e.stopped:
		return nil, e.stoppedErr()
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: the server was too busy to take the change before the request's deadline; nothing was changed", ErrUnavailable)
		}
		return nil, ctx.Err()
	}
	select {
	case r := <-o.done:
		return r.v, r.err
	case <-e.stopped:
		return nil, e.stoppedErr()
	case <-answerBy(ctx, o):
		return nil, fmt.Errorf("%w: no answer before the request's deadline (%v); the change is queued and may still be stored", ErrUnconfirmed, ctx.Err())
	}
}

// auditedRefusal is an op's error that the op's own audit entry records,
// committed with it: the caller must not audit the refusal again.
type auditedRefusal struct{ error }

func (a auditedRefusal) Unwrap() error { return a.error }

// Audited says err is an op's refusal already in the audit log (an op
// with an audit entry refused, and its batch committed). errors.Is and
// errors.As see through the mark.
func Audited(err error) bool { return errors.As(err, new(auditedRefusal)) }

// answerBy is when doOp stops waiting for o's answer: when ctx ends, but
// never for an op that must run to its end (Shutdown's).
func answerBy(ctx context.Context, o *op) <-chan struct{} {
	if o.always {
		return nil
	}
	return ctx.Done()
}

func (e *Engine) stoppedErr() error {
	if e.fatal != nil {
		return errors.Join(ErrStopped, errors.New("the server stopped after a storage fault; its operator must act (see its log)"))
	}
	return ErrStopped
}

// Done is closed when the loop has stopped: after Shutdown, or on its own
// after a fatal storage fault (then Err says why).
func (e *Engine) Done() <-chan struct{} { return e.stopped }

// Err is the fatal fault that stopped the loop on its own, or nil. Read it
// after Done is closed.
func (e *Engine) Err() error {
	select {
	case <-e.stopped:
		return e.fatal
	default:
		return nil
	}
}

// Health says whether the engine runs and the store accepts writes, and if
// not, why (for /readyz).
type Health struct {
	Ready  bool   `json:"ready"`
	Reason string `json:"reason,omitempty"`
}

// Health reports the engine's readiness. It takes no lock: /healthz and
// /readyz answer while the loop holds the engine for a long cycle.
func (e *Engine) Health() Health {
	select {
	case <-e.stopped:
		if e.fatal != nil {
			return Health{Reason: "the engine stopped after a storage fault: " + e.fatal.Error()}
		}
		return Health{Reason: "the engine has stopped (shutting down)"}
	default:
	}
	if f := e.fault.Load(); f != nil {
		return Health{Reason: "writes are failing (" + f.What + "); the server retries by itself: " + f.Fix}
	}
	return Health{Ready: true}
}

// waitRuns waits until no task's pods run, the deadline passes or the loop
// has stopped.
func (e *Engine) waitRuns(deadline time.Time) {
	for time.Now().Before(deadline) && e.Err() == nil {
		e.mu.RLock()
		n := len(e.runs)
		e.mu.RUnlock()
		if n == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Shutdown stops the loop. Running tasks are stopped with their grace period
// and requeued, so that the next start resumes them from their checkpoints;
// with an executor.Adopter (Kubernetes) they keep running instead, and the
// next start adopts them. Whatever still runs when ctx ends (or the longest
// grace period passes) is killed, so that nothing outlives the server.
func (e *Engine) Shutdown(ctx context.Context) error {
	_, adopts := e.exec.(executor.Adopter)
	_, err := e.doOp(ctx, &op{done: make(chan result, 1), always: true, fn: func(w *writes) (any, error) {
		e.closing = true
		if adopts {
			for name := range e.runs {
				e.undo.saveRun(e, name)
			}
			clear(e.runs)
			return nil, nil
		}
		for _, name := range e.runningNames() {
			e.interrupt(name, "requeued at server shutdown; resumes from its last checkpoint", w)
		}
		return nil, nil
	}})
	// Running tasks get their grace period, within ctx's deadline less a
	// second; then whatever still runs is killed, and the loop goes on until
	// their exits are in (or ctx ends), so that nothing is left behind.
	deadline := time.Now().Add(time.Duration(model.DefaultGracePeriodSeconds+5) * time.Second)
	hard, bounded := ctx.Deadline()
	if bounded && hard.Add(-time.Second).Before(deadline) {
		deadline = hard.Add(-time.Second)
	}
	if !adopts {
		e.waitRuns(deadline)
		e.mu.RLock()
		left := make([]string, 0, len(e.runs))
		for name := range e.runs {
			left = append(left, name)
		}
		e.mu.RUnlock()
		for _, name := range left {
			e.exec.Stop(name, 0) // past the grace: kill
		}
		if !bounded {
			hard = time.Now().Add(5 * time.Second)
		}
		e.waitRuns(hard)
	}
	select {
	case <-e.stopped:
	default:
		close(e.quit)
		<-e.stopped
	}
	e.actors.close()
	if err == nil {
		err = e.fatal
	}
	return err
}
