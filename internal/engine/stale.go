package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// A failed commit is undone by rereading the state from the store
// (rollback.go). When the store cannot be read either (a restarted
// PostgreSQL refuses connections while it recovers; a disk that fails
// reads as well as writes), the engine used to stop for good: a database
// restart of a second stopped the control plane. Now, if both faults are
// transient, the core is marked stale: it may still hold the undone batch,
// so nothing is computed on it, published from it or acted on. Every step
// first tries the reread again (at the fault's retry pace, as a heartbeat
// would); until it succeeds, callers get ErrUnavailable (503 with
// Retry-After), facts wait in redo, and /healthz and /readyz name the
// fault. A reread that fails for any other reason (the stored state is
// refused by the core) is fatal, as before.

// storeReadTimeout bounds the loop's own reads of the store (the probe, the
// reread that undoes a failed commit): a database that hangs (a paused
// host, a network that drops packets) makes them fail, as commits do after
// their own timeout, instead of holding the loop, and every reader waiting
// on it, while health still says ok.
var storeReadTimeout = 10 * time.Second // a variable for tests

// readCtx bounds a read of the store that an op makes on the loop (the
// names an earlier task used, an idempotency key's task), as the probe and
// the reread are bounded.
func readCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), storeReadTimeout)
}

// degrade marks the engine not ready after a failed probe, unless a fault
// is already marked: writes are refused until the retry, whose heartbeat
// write clears the fault if the store takes it.
func (e *Engine) degrade(f *model.Fault) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fault.Load() == nil {
		e.fault.Store(f)
		e.retryAt = time.Now()
	}
}

// errStaleQueue answers a queue listing while the core is stale.
var errStaleQueue = fmt.Errorf("%w: the queue cannot be listed until the state is reread from the store; the server tries again by itself", ErrUnavailable)

// storeReadError marks a failed read of the store in rebuild, as opposed to
// a stored state the core refuses.
type storeReadError struct{ error }

func (r storeReadError) Unwrap() error { return r.error }

// mayRereadLater reports whether a failed reread is worth retrying: the
// store's read failed, with a transient fault.
func (e *Engine) mayRereadLater(err error) bool {
	var re storeReadError
	return errors.As(err, &re) && e.classify(err).Kind == model.FaultTransient
}

// rereadStale tries the reread again. It clears e.stale and publishes the
// reread state on success, returns a fatal fault if the reread can no
// longer succeed, and otherwise leaves e.stale set and moves the next try
// on by the retry period.
func (e *Engine) rereadStale() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), storeReadTimeout)
	defer cancel()
	err := e.rebuild(ctx)
	switch {
	case err == nil:
		e.stale = false
		e.publishAll()
		e.log.Info("the state was reread from the store")
		return nil
	case !e.mayRereadLater(err):
		return &model.Fault{Kind: model.FaultFatal, What: "could not reread the state after a failed write", Err: err,
			Fix: "check the database (the data directory's disk, or PostgreSQL); restart the server once it is healthy (it recovers from the database)"}
	}
	if e.fault.Load() == nil {
		e.fault.Store(e.classify(err))
	}
	e.retryAt = time.Now().Add(e.retryEvery)
	return nil
}

// refuseStale answers every caller of batch with ErrUnavailable (shutdown
// included: its work cannot be computed on a stale core) and keeps facts
// for the step after the reread.
func (e *Engine) refuseStale(batch []*op) {
	f := e.fault.Load()
	for _, o := range batch {
		if o.done == nil {
			e.redo = append(e.redo, o)
			continue
		}
		o.done <- result{err: fmt.Errorf("%w: %s; the state is reread first; retry later (%s)", ErrUnavailable, f.What, f.Fix)}
	}
}
