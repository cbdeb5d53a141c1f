package httpapi

import (
	"context"
	"math"
	"strings"
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

// taskCache keeps every task record and what the summary needs from their
// runs, so that the dashboard's task page sorts and filters 10,000 tasks in
// memory instead of reading them all from SQLite on every 2-second refresh
// (that read is 200-600 ms at 10,000 tasks on a 2-vCPU machine). Any task
// event marks it stale; the next page request reloads it, one load at a
// time.
type taskCache struct {
	changes atomic.Uint64 // bumped by every task event

	mu     sync.Mutex
	loaded uint64 // changes when the copy was read
	at     time.Time
	recs   []model.TaskRecord
	stats  map[string]runStats
}

// runStats is one task's runs, reduced.
type runStats struct {
	firstStart time.Time
	closed     time.Duration // total length of its ended runs
	openSince  time.Time     // start of its open run, if any
	preempted  bool          // a run ended in a preemption (not a suspension)
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

// get returns the records and run stats, reloading them if a task changed
// since they were read or they are older than taskCacheMaxAge. The returned
// slice and map are shared: callers must not change them.
func (c *taskCache) get(ctx context.Context, st Store, now time.Time) ([]model.TaskRecord, map[string]runStats, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := c.changes.Load() // read before the store: a change during the load marks the copy stale
	if c.recs != nil && c.loaded == seen && now.Sub(c.at) < taskCacheMaxAge {
		return c.recs, c.stats, nil
	}
	recs, err := st.ListTasks(ctx, model.TaskFilter{Limit: math.MaxInt32})
	if err != nil {
		return nil, nil, err
	}
	from := now
	for _, r := range recs {
		if r.SubmittedAt.Before(from) {
			from = r.SubmittedAt
		}
	}
	runs, err := st.Runs(ctx, from, now.Add(time.Hour))
	if err != nil {
		return nil, nil, err
	}
	stats := make(map[string]runStats, len(recs))
	for _, run := range runs {
		s := stats[run.Task]
		if s.firstStart.IsZero() || run.StartedAt.Before(s.firstStart) {
			s.firstStart = run.StartedAt
		}
		if run.EndedAt.IsZero() {
			s.openSince = run.StartedAt
		} else {
			s.closed += run.EndedAt.Sub(run.StartedAt)
		}
		if reason, ok := strings.CutPrefix(run.Outcome, "preempted: "); ok && reason != string(model.Suspended) {
			s.preempted = true
		}
		stats[run.Task] = s
	}
	c.recs, c.stats, c.loaded, c.at = recs, stats, seen, now
	return recs, stats, nil
}
