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
			}
			w.put(model.Write{Audit: &a})
		}
	}
	started := time.Now()
	d := e.sched.Schedule(e.now())
	cycle := time.Since(started)
	w.after = append(w.after, func() { e.obs.Cycle(cycle) })
	e.apply(d, w)
	e.waitFresh = false // the core builds the list on the next read (waitindex.go)
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
	rerr := e.rollback(context.Background())
	if rerr == nil {
		e.publishAll()
	}
	f := &model.Fault{Kind: model.FaultTransient, What: fmt.Sprintf("the scheduler failed on a batch (internal error: %v)", c.value),
		Fix: "this is a bug in taskgov: nothing of the batch was stored; the server tries again by itself; please report the stack trace in the server log"}
	e.fault = f
	e.retryAt = time.Now().Add(e.retryEvery)
	e.mu.Unlock()
	e.log.Error("internal error: a batch panicked; it was undone and the engine goes on", "panic", fmt.Sprint(c.value), "stack", string(c.stack))
	if rerr != nil {
		return &model.Fault{Kind: model.FaultFatal, What: "could not reread the state after an internal error", Err: rerr,
			Fix: "restart the server (it recovers from the database) and report the stack trace in the log"}
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
