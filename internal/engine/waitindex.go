package engine

import (
	"sort"
	"sync"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/metrics"
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

// waitView is a View's waiting list and its index. The core builds the
// list lazily (a cycle costs what changed; the list costs the whole queue),
// so a View is published without it, and the loop builds it between two
// steps, when the core holds exactly that View's state, once a reader asks
// (serveWaiting). The index is built on the first read, once; Views that
// share the list share it.
type waitView struct {
	built chan struct{} // closed once list (or err) is set
	list  []model.Waiting
	err   error     // the list could not be built (it is then empty)
	at    time.Time // when list (or err) was set
	once  sync.Once
	idx   *waitIndex
	// counts: list counted by team and reason, for /metrics (pendingcount.go)
	countOnce sync.Once
	counts    []metrics.Pending
	// groups: list counted by team, instance type and reason, with GPUs
	// (queuesummary.go)
	groupOnce sync.Once
	groups    []apitypes.QueueGroup
}

func newWaitView() *waitView { return &waitView{built: make(chan struct{})} }

func builtWaitView(list []model.Waiting) *waitView {
	w := &waitView{built: make(chan struct{}), list: list, at: time.Now()}
	close(w.built)
	return w
}

func (w *waitView) isBuilt() bool {
	select {
	case <-w.built:
		return true
	default:
		return false
	}
}

func (w *waitView) index() *waitIndex {
	w.once.Do(func() { w.idx = buildWaitIndex(w.list) })
	return w.idx
}

// queue returns a View whose waiting list is built, and its index: v when
// its list is built or the loop builds it now (it is between steps), else,
// if the loop is in a step, the View it publishes next. It waits for the
// loop only in that last case: a list nobody read before the step began.
// After the engine stopped, an unbuilt list reads as empty.
func (v *View) queue() (*View, *waitIndex) {
	for {
		if v.wait.isBuilt() {
			return v, v.wait.index()
		}
		if v.e == nil {
			return v, buildWaitIndex(nil)
		}
		select {
		case v.e.wantWait <- struct{}{}:
		default: // a request is already queued
		}
		select {
		case <-v.wait.built:
		case <-v.next:
			v = v.e.View()
		case <-v.e.stopped:
			return v, buildWaitIndex(nil)
		}
	}
}

// serveWaiting builds the current View's waiting list, on the loop between
// steps, when the core holds that View's state. It returns only a fatal
// fault (the state could not be reread after a panic).
func (e *Engine) serveWaiting() error {
	v := e.view.Load()
	if v.wait.isBuilt() {
		return nil
	}
	e.mu.Lock() // Waiting caches the list in the core; Preview reads it
	if e.waitCrash != nil && time.Now().Before(e.waitCrashUntil) {
		v.wait.err = listErr(e.waitCrash) // paused after a panic (panic.go)
		v.wait.at = time.Now()
		e.reasons.Store(nil) // /metrics must not count an old listing meanwhile
		e.mu.Unlock()
		close(v.wait.built)
		return nil
	}
	if e.stale && !e.waitFresh { // the core may hold an undone batch (stale.go)
		v.wait.err = errStaleQueue
		v.wait.at = time.Now()
		e.reasons.Store(nil)
		e.mu.Unlock()
		close(v.wait.built)
		return nil
	}
	if !e.waitFresh {
		list, c := e.listWaiting()
		if c != nil {
			err := e.waitingPanicked(c) // unlocks e.mu
			v.wait.err, v.wait.at = listErr(c), time.Now()
			e.reasons.Store(nil)
			close(v.wait.built)
			return err
		}
		e.waiting, e.waitFresh = list, true
		e.waitCrash, e.waitPanics = nil, 0
	}
	list := e.waiting
	e.mu.Unlock()
	v.wait.list, v.wait.at = list, time.Now()
	close(v.wait.built)
	return nil
}

// QueueErr is why the current queue cannot be listed (an internal error,
// for a while after it: see waitingPanicked), or nil. Readers of the queue
// call it first, so as not to present an empty list as an empty queue.
func (e *Engine) QueueErr() error {
	v, _ := e.View().queue()
	return v.wait.err
}

func sameList(a, b []model.Waiting) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// QueuePage returns up to limit pending tasks of the given teams (all if
// empty), team by team in queue order, starting at offset in that order,
// and the total count. It costs O(teams + limit), not a walk of the queue.
func (v *View) QueuePage(teams map[string]bool, offset, limit int) (page []apitypes.Task, total int) {
	v, x := v.queue()
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
			if t, ok := v.waitingTask(x.list[i]); ok {
				page = append(page, t)
			}
		}
		total += sp[1] - sp[0]
	}
	return page, total
}
