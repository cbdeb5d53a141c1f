package engine

import (
	"sort"
	"sync"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// waitIndex indexes one cycle's Waiting list (team by team, in queue order)
// for the visibility API: a task's position and reason in O(1), a page of a
// team's queue in O(teams + page). It is built on the first read after a
// cycle replaced the list, once, instead of a walk of the whole queue per
// request.
type waitIndex struct {
	list   []model.Waiting
	byTask map[string]int
	teams  []string          // in list order
	span   map[string][2]int // team -> [start, end) in list
}

func buildWaitIndex(list []model.Waiting) *waitIndex {
	x := &waitIndex{list: list, byTask: make(map[string]int, len(list)), span: map[string][2]int{}}
	for i, w := range list {
		x.byTask[w.Task] = i
		if i == 0 || list[i-1].Team != w.Team {
			x.teams = append(x.teams, w.Team)
			x.span[w.Team] = [2]int{i, i}
		}
		sp := x.span[w.Team]
		sp[1] = i + 1
		x.span[w.Team] = sp
	}
	return x
}

// waitIdxCache holds the index of the current list; readers under e.mu's
// read lock share it.
type waitIdxCache struct {
	mu  sync.Mutex
	idx *waitIndex
}

// waitIdx returns the index of the waiting list, asking the core for the
// list first if a cycle ran since it was built (the core builds it lazily:
// a cycle costs what changed, a read after it the whole list, once). The
// caller holds e.mu (read or write); c.mu serialises the build, which only
// reads the core.
func (e *Engine) waitIdx() *waitIndex {
	c := &e.widx
	c.mu.Lock()
	defer c.mu.Unlock()
	if !e.waitFresh {
		e.waiting, e.waitFresh = e.sched.Waiting(), true
	}
	if c.idx == nil || !sameList(c.idx.list, e.waiting) {
		c.idx = buildWaitIndex(e.waiting)
	}
	return c.idx
}

func sameList(a, b []model.Waiting) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// QueuePage returns up to limit pending tasks of the given teams (all if
// empty), team by team in queue order, starting at offset in that order,
// and the total count. It costs O(teams + limit), not a walk of the queue.
func (e *Engine) QueuePage(teams map[string]bool, offset, limit int) (page []apitypes.Task, total int) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	x := e.waitIdx()
	var spans [][2]int
	if len(teams) == 0 {
		spans = [][2]int{{0, len(x.list)}}
	} else {
		names := make([]string, 0, len(teams))
		for t := range teams {
			if _, ok := x.span[t]; ok {
				names = append(names, t)
			}
		}
		sort.Slice(names, func(a, b int) bool { return x.span[names[a]][0] < x.span[names[b]][0] })
		for _, t := range names {
			spans = append(spans, x.span[t])
		}
	}
	for _, sp := range spans {
		for i := max(sp[0], sp[0]+offset-total); i < sp[1] && len(page) < limit; i++ {
			w := x.list[i]
			if r := e.records[w.Task]; r != nil {
				reason := w.Reason
				page = append(page, apitypes.Task{TaskRecord: *r, Position: w.Position, Reason: &reason, Why: reason.Message()})
			}
		}
		total += sp[1] - sp[0]
	}
	return page, total
}
