package engine

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// crash is a panic caught while a batch was applied or scheduled: a bug in
// taskgov, not a fault of the store or the caller.
type crash struct {
	value any
	stack []byte
}

// compute applies the batch's ops and runs a cycle, in memory, with e.mu
// held. It returns the panic it caught, if any; the state is then half
// changed and must be rebuilt (panicked).
func (e *Engine) compute(batch []*op, w *writes, results []result) (caught *crash) {
	defer func() {
		if p := recover(); p != nil {
			caught = &crash{value: p, stack: debug.Stack()}
		}
	}()
	for i, o := range batch {
		v, err := o.fn(w)
		results[i] = result{v, err}
		if o.audit != nil {
			a := *o.audit
			a.At = e.now()
			a.Result = "ok"
			if err != nil {
				a.Result = "refused: " + err.Error()
				results[i].err = auditedRefusal{err}
			}
			w.put(model.Write{Audit: &a})
		}
	}
	started := time.Now()
	d := e.sched.Schedule(e.now())
	cycle := time.Since(started)
	w.after = append(w.after, func() { e.obs.Cycle(cycle) })
	e.apply(d, w)
	// The core builds the list on the next read (waitindex.go). The old one
	// is dropped: no later View reads it, and with 100,000 pending it is
	// some 30 MB the collector would otherwise mark until the next read
	// (the undo log keeps it for a rollback of this step).
	e.waiting, e.waitFresh = nil, false
	return nil
}

// panicked handles a batch whose ops or cycle panicked, called with e.mu
// held (it unlocks it). Nothing of the batch was stored, so it is undone as
// after a failed commit: memory is rebuilt from the store, callers are told
// nothing changed, and facts (pod events) wait in redo. The engine stays up
// for reads, reports itself not ready (/readyz) with the panic, refuses
// writes until its next retry, and then tries again: a panic that an input
// caused goes with that input, and one that the state causes keeps the
// server not ready, with the stack in the log, instead of exiting and
// crashing again at every restart. Only a failed rebuild is fatal.
func (e *Engine) panicked(c *crash, batch []*op) error {
	ctx, cancel := context.WithTimeout(context.Background(), storeReadTimeout)
	rerr := e.rollback(ctx)
	cancel()
	if rerr == nil {
		e.publishAll()
	}
	f := &model.Fault{Kind: model.FaultTransient, What: fmt.Sprintf("the scheduler failed on a batch (internal error: %v)", c.value),
		Fix: "this is a bug in taskgov: nothing of the batch was stored; the server tries again by itself; please report the stack trace in the server log"}
	e.fault.Store(f)
	e.retryAt = time.Now().Add(e.retryEvery)
	e.mu.Unlock()
	e.log.Error("internal error: a batch panicked; it was undone and the engine goes on", "panic", fmt.Sprint(c.value), "stack", string(c.stack))
	if rerr != nil {
		return rereadFailed(rerr)
	}
	for _, o := range batch {
		switch {
		case o.done != nil:
			o.done <- result{err: fmt.Errorf("%w: %s; retry later (%s)", ErrUnavailable, f.What, f.Fix)}
		default:
			e.redo = append(e.redo, o)
		}
	}
	return nil
}

// listWaiting builds the core's waiting list, with e.mu held, and returns
// the panic it caught, if any (the core's deferred tries run here, outside
// any batch: stop.go's renderDeferred).
func (e *Engine) listWaiting() (list []model.Waiting, caught *crash) {
	defer func() {
		if p := recover(); p != nil {
			caught = &crash{value: p, stack: debug.Stack()}
		}
	}()
	if e.waitingOf != nil {
		return e.waitingOf(e.sched), nil
	}
	return e.sched.Waiting(), nil
}

// maxListPause bounds how long queue reads are refused after panics in a
// row while listing it.
const maxListPause = 5 * time.Minute

// waitingPanicked handles a panic while the waiting list was built for a
// reader, called with e.mu held (it unlocks it). No batch was in flight, so
// nothing is undone, but the core may be half changed: it is reread from the
// store (running pods stay adopted where they are; in-memory state such as
// starvation holds is lost, as at a restart) and a new View published. For a
// pause (retryEvery, doubled after each such panic in a row, at most
// maxListPause) queue reads answer that the queue cannot be listed, naming
// the error, instead of trying again: a list that panics at every read
// would otherwise rebuild the core at every read and flap readiness. The
// engine reports itself not ready and refuses writes for the same pause, as
// after a panic in a batch. Only a failed rebuild is fatal: it is returned.
func (e *Engine) waitingPanicked(c *crash) error {
	pause := min(e.retryEvery<<min(e.waitPanics, 20), maxListPause)
	e.waitPanics++
	e.waitCrash, e.waitCrashUntil = c, time.Now().Add(pause)
	e.waiting, e.waitFresh = nil, false
	ctx, cancel := context.WithTimeout(context.Background(), storeReadTimeout)
	rerr := e.rebuild(ctx)
	cancel()
	if rerr == nil {
		e.publishAll()
	}
	e.fault.Store(&model.Fault{Kind: model.FaultTransient,
		What: fmt.Sprintf("the scheduler failed listing the queue (internal error: %v)", c.value),
		Fix:  fmt.Sprintf("this is a bug in taskgov: the queue cannot be read for %v, then the server tries again by itself; please report the stack trace in the server log", pause)})
	e.retryAt = e.waitCrashUntil
	e.mu.Unlock()
	e.log.Error("internal error: listing the queue panicked; the state was reread and the engine goes on", "panic", fmt.Sprint(c.value), "pause", pause, "stack", string(c.stack))
	if rerr != nil {
		return rereadFailed(rerr)
	}
	return nil
}

// rereadFailed is the fatal fault of a state that cannot be reread after an
// internal error.
func rereadFailed(err error) error {
	return &model.Fault{Kind: model.FaultFatal, What: "could not reread the state after an internal error", Err: err,
		Fix: "restart the server (it recovers from the database) and report the stack trace in the log"}
}

// listErr is the error a queue read gets while the list cannot be built.
func listErr(c *crash) error {
	return fmt.Errorf("%w: the queue cannot be listed (internal error: %v); the server tries again by itself", ErrUnavailable, c.value)
}
