package engine

import (
	"hash/fnv"
	"sync"
	"sync/atomic"
)

// actors run executor calls (start, stop) off the loop, so that a slow
// executor (API round trips for each pod) does not hold up decisions. Calls
// for one task run in order on one worker; calls for different tasks run
// concurrently. Queues are unbounded: the loop never blocks on them, and the
// workers may block sending results back to the loop.
type actors struct {
	queues []*actQueue
	busy   atomic.Int64 // calls queued or running (tests wait for 0)
}

type actQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	pending []func()
	closed  bool
	busy    *atomic.Int64
}

func newActors(workers int) *actors {
	a := &actors{queues: make([]*actQueue, workers)}
	for i := range a.queues {
		q := &actQueue{busy: &a.busy}
		q.cond = sync.NewCond(&q.mu)
		a.queues[i] = q
		go q.run()
	}
	return a
}

// do queues fn behind every earlier call for task.
func (a *actors) do(task string, fn func()) {
	h := fnv.New32a()
	_, _ = h.Write([]byte(task))
	q := a.queues[h.Sum32()%uint32(len(a.queues))]
	q.mu.Lock()
	if !q.closed {
		a.busy.Add(1)
		q.pending = append(q.pending, fn)
		q.cond.Signal()
	}
	q.mu.Unlock()
}

// close drops queued calls and ends the workers after their current call.
func (a *actors) close() {
	for _, q := range a.queues {
		q.mu.Lock()
		q.busy.Add(-int64(len(q.pending)))
		q.closed, q.pending = true, nil
		q.cond.Signal()
		q.mu.Unlock()
	}
}

func (q *actQueue) run() {
	for {
		q.mu.Lock()
		for len(q.pending) == 0 && !q.closed {
			q.cond.Wait()
		}
		if q.closed {
			q.mu.Unlock()
			return
		}
		fn := q.pending[0]
		q.pending[0] = nil
		q.pending = q.pending[1:]
		q.mu.Unlock()
		fn()
		q.busy.Add(-1)
	}
}
