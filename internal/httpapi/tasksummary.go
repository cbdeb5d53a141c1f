package httpapi

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// summaryRecount is how often, at most, the Tasks page's figures over a
// set of teams are counted again while tasks change: counting walks every
// task of those teams and their runs (1-3 s at 100,000 tasks on the 2
// shared cores, TestTaskPageAt100k's log), so a page refreshed every 2 s
// must not count on each refresh. A count that took d is not repeated
// within 20·d (at most 5% of the time counting), so that a small cluster's
// figures follow its tasks at once.
const summaryRecount = 10 * time.Second

// summaryCache keeps the last count of each set of teams (model.TaskFacts,
// from the store): it is counted again when a task event happened since
// and it is min(summaryRecount, 20·its counting time) old, or when it is
// taskCacheMaxAge old. One count runs at a time.
type summaryCache struct {
	mu    sync.Mutex
	byKey map[string]summaryEntry
}

type summaryEntry struct {
	facts   model.TaskFacts
	at      time.Time
	took    time.Duration
	changes uint64
}

// get returns the figures over teams (all if none) at about now; changes
// is the task event counter (taskCache.changes).
func (c *summaryCache) get(ctx context.Context, st Store, changes uint64, teams []string, now time.Time) (apitypes.TaskSummary, error) {
	teams = slices.Sorted(slices.Values(teams))
	key := strings.Join(teams, "\x00")
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	age := now.Sub(e.at)
	if !ok || age >= taskCacheMaxAge || (e.changes != changes && age >= min(summaryRecount, 20*e.took)) || age < 0 {
		start := time.Now()
		facts, err := st.TaskFacts(ctx, teams, now)
		if err != nil {
			return apitypes.TaskSummary{}, err
		}
		if c.byKey == nil || len(c.byKey) >= 64 { // a bound on what team sets callers ask for
			c.byKey = map[string]summaryEntry{}
		}
		e = summaryEntry{facts: facts, at: now, took: time.Since(start), changes: changes}
		c.byKey[key] = e
	}
	return taskSummary(e.facts), nil
}

// taskSummary is the Tasks page's figures from the store's facts:
//   - counts per state;
//   - preempted: tasks with a run that ended in a preemption (not a
//     suspension; an auto-resume retry after a failure is not one);
//   - mean wait: submission to the first start, or to now for a task that
//     has not started yet (to its end if it ended without starting);
//   - mean run: total running time of the finished tasks that ran.
func taskSummary(f model.TaskFacts) apitypes.TaskSummary {
	sum := apitypes.TaskSummary{Counts: f.Counts, Preempted: f.Preempted}
	n := 0
	for _, c := range f.Counts {
		n += c
	}
	if n > 0 {
		sum.MeanWaitSeconds = f.WaitMillis / 1000 / float64(n)
	}
	if f.RunN > 0 {
		sum.MeanRunSeconds = f.RunMillis / 1000 / float64(f.RunN)
	}
	return sum
}
