package httpapi

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/model"
)

// taskCacheMaxAge bounds how long the task page may serve a copy of the
// store's task list when no task event has said it changed (a checkpoint
// time, for one, changes without an event).
const taskCacheMaxAge = 30 * time.Second

// taskCache keeps every task record for the task pages sorted by a column
// the store cannot sort by (priority weight, instance type, pods, GPUs,
// vCPU, memory: they depend on the policy and the catalog), so that such a
// page sorts in memory instead of reading every task on every 2-second
// refresh. The first such page reads every task once (about 9 s at
// 100,000 tasks on the 2 shared cores; TestTaskPageAt100k logs it). Pages
// sorted by a stored column come from the store (Store.TaskPage) and never
// load it. Any task event marks it stale; the next such page reloads it,
// one load at a time.
type taskCache struct {
	changes atomic.Uint64 // bumped by every task event

	mu     sync.Mutex
	loaded uint64 // changes when the copy was read
	at     time.Time
	recs   []model.TaskRecord
}

// watch marks the cache stale on every committed step with task events,
// for the server's life. A step the subscription loses is no harm: it
// loses steps only while it holds a full buffer of others, each of which
// marks the cache stale once read.
func (c *taskCache) watch(eng *engine.Engine) {
	sub := eng.Subscribe(func(string) bool { return true })
	go func() {
		for range sub.C {
			c.changes.Add(1)
		}
	}()
}

// get returns the records, reloading them if a task changed since they
// were read or they are older than taskCacheMaxAge. The returned slice is
// shared: callers must not change it.
func (c *taskCache) get(ctx context.Context, st Store, now time.Time) ([]model.TaskRecord, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := c.changes.Load() // read before the store: a change during the load marks the copy stale
	if c.recs != nil && c.loaded == seen && now.Sub(c.at) < taskCacheMaxAge {
		return c.recs, nil
	}
	recs, err := st.ListTasks(ctx, model.TaskFilter{Limit: math.MaxInt32})
	if err != nil {
		return nil, err
	}
	c.recs, c.loaded, c.at = recs, seen, now
	return recs, nil
}
