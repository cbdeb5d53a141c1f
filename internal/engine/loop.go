package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

func (e *Engine) loop(probeEvery time.Duration) {
	defer close(e.stopped)
	timer := time.NewTimer(0) // a first cycle at once: recovery may have requeued tasks
	defer timer.Stop()
	probe := time.NewTicker(probeEvery)
	defer probe.Stop()
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
		case <-e.wantWait:
			if err := e.serveWaiting(); err != nil {
				e.stop(err, nil)
				return
			}
			timer.Reset(e.untilWake()) // a panic listing it sets a retry
			continue
		case <-probe.C:
			ctx, cancel := context.WithTimeout(context.Background(), storeReadTimeout)
			err := e.store.Probe(ctx)
			cancel()
			if err != nil {
				f := e.classify(err)
				e.obs.StoreFault(string(f.Kind))
				if f.Kind == model.FaultFatal {
					e.stop(f, nil)
					return
				}
				e.log.Warn("database probe failed", "err", err)
				e.degrade(&model.Fault{Kind: f.Kind, What: "the database does not answer (" + f.What + ")", Fix: f.Fix, Err: err})
				timer.Reset(e.untilWake())
			}
			continue
		case <-timer.C:
		}
		batch = e.drain(batch)
		if err := e.step(batch); err != nil {
			e.stop(err, batch)
			return
		}
		timer.Reset(e.untilWake())
	}
}

// stop ends the loop after a fatal fault: callers of the batch learn it,
// and the server (watching Done) exits.
func (e *Engine) stop(err error, batch []*op) {
	e.fatal = err
	e.log.Error("engine stopped: storage fault; nothing more is acknowledged", "err", err)
	for _, o := range batch {
		if o.done != nil {
			o.done <- result{err: e.stoppedErr()}
		}
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
	if e.fault.Load() != nil {
		return max(time.Until(e.retryAt), time.Millisecond)
	}
	if e.sched.Dirty() || len(e.redo) > 0 {
		return 0
	}
	wake, ok := e.sched.NextWake()
	if !ok {
		return time.Hour
	}
	return max(min(wake.Sub(e.now()), time.Hour), time.Millisecond)
}

// step applies a batch, runs a cycle, commits everything once, and only then
// answers, publishes and acts (persist, then apply). If the commit fails,
// the batch is undone (see rollback): callers get an error, facts wait in
// redo, and the engine goes on. Only a fatal fault is returned.
func (e *Engine) step(batch []*op) error {
	e.mu.RLock()
	degraded := e.fault.Load() != nil
	e.mu.RUnlock()
	if degraded && time.Now().Before(e.retryAt) {
		if batch = e.refuseWhileDegraded(batch); len(batch) == 0 {
			return nil
		}
	}
	batch = append(e.redo, batch...)
	e.redo = nil
	if e.stale {
		if err := e.rereadStale(); err != nil {
			return err
		}
		if e.stale {
			e.refuseStale(batch)
			return nil
		}
	}
	// A submission writes three rows (task, event, audit): room for them up
	// front instead of growing the list (about 800 bytes of garbage a submission).
	w := &writes{ws: make([]model.Write, 0, 3*len(batch))}
	results := make([]result, len(batch))
	e.mu.Lock()
	e.undo.begin(e)
	if p := e.compute(batch, w, results); p != nil {
		return e.panicked(p, batch) // unlocks e.mu
	}
	e.mu.Unlock()

	if degraded {
		w.put(model.Write{Heartbeat: e.now()})
	}
	if len(w.ws) > 0 {
		started := time.Now()
		if err := e.store.Apply(context.Background(), w.ws); err != nil {
			return e.failed(err, batch)
		}
		e.obs.Commit(time.Since(started), len(batch))
	}
	e.publishStep(w.ws) // before answering: a caller reads its own write
	if degraded {
		e.mu.Lock()
		e.fault.Store(nil)
		e.mu.Unlock()
		e.log.Info("writes succeed again; the engine is ready")
	}
	for i, o := range batch {
		if o.done != nil {
			o.done <- results[i]
		}
	}
	for _, f := range w.after {
		f()
	}
	e.publish(w.events)
	for _, a := range w.acts {
		e.actors.do(a.task, a.fn)
	}
	return nil
}

// failed handles a batch whose commit failed. A fatal fault is returned (the
// loop stops). Otherwise memory is put back as the store has it, callers are
// told nothing changed, and facts are kept to apply again.
func (e *Engine) failed(err error, batch []*op) error {
	f := e.classify(err)
	e.obs.StoreFault(string(f.Kind))
	if f.Kind == model.FaultFatal {
		return f
	}
	e.mu.Lock()
	if f.Kind == model.FaultTransient {
		e.fault.Store(f) // before the reread: health says so while it runs
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeReadTimeout)
	rerr := e.rollback(ctx)
	cancel()
	if rerr == nil {
		e.publishAll() // the rebuilt core drops what the store does not hold (holds)
	}
	if f.Kind == model.FaultTransient {
		e.retryAt = time.Now().Add(e.retryEvery) // then a heartbeat write tries again
	}
	e.mu.Unlock()
	if rerr != nil {
		if f.Kind != model.FaultTransient || !e.mayRereadLater(rerr) {
			return &model.Fault{Kind: model.FaultFatal, What: "could not reread the state after a failed write", Err: errors.Join(err, rerr),
				Fix: "check the database (the data directory's disk, or PostgreSQL); restart the server once it is healthy (it recovers from the database)"}
		}
		e.stale = true
		e.log.Warn("the state could not be reread after a failed write either; writes are refused until it is", "err", rerr)
	}
	e.log.Warn("a batch of writes failed; it was undone and the engine goes on", "kind", f.Kind, "err", err)
	for _, o := range batch {
		switch {
		case o.done != nil && f.Kind == model.FaultTransient:
			refused := ErrUnavailable
			if errors.Is(err, context.DeadlineExceeded) {
				refused = ErrUnconfirmed
			}
			o.done <- result{err: fmt.Errorf("%w: %s; retry later (%s)", refused, f.What, f.Fix)}
		case o.done != nil:
			o.done <- result{err: fmt.Errorf("the change could not be stored: %w", err)}
		case f.Kind == model.FaultTransient:
			e.redo = append(e.redo, o)
		default:
			e.log.Error("a pod event could not be stored and was dropped", "err", err)
		}
	}
	return nil
}

// refuseWhileDegraded answers callers at once while writes fail (between
// retries) and keeps facts for the next try. It returns the ops to try now
// anyway (shutdown).
func (e *Engine) refuseWhileDegraded(batch []*op) []*op {
	e.mu.RLock()
	f := e.fault.Load()
	e.mu.RUnlock()
	var keep []*op
	for _, o := range batch {
		switch {
		case o.done == nil:
			e.redo = append(e.redo, o)
		case o.always:
			keep = append(keep, o)
		default:
			o.done <- result{err: fmt.Errorf("%w: %s; retry later (%s)", ErrUnavailable, f.What, f.Fix)}
		}
	}
	return keep
}
