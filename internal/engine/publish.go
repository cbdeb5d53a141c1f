package engine

import (
	"github.com/taskgov/taskgov/internal/model"
)

// Publishing a View (see view.go). The loop calls publishStep after each
// committed step and publishAll after recovery and after a failed commit's
// rollback; both run on the loop goroutine, the only writer of the state
// they read.
//
// publishStep costs O(k log n) for k task records written by the step (a
// path copy in recMap's trie each), plus O(nodes + teams) only when the step
// changed the cluster part: a cluster write (teams, policy, cordons, node
// health or size), a task entering or leaving Running (allocations), or a
// starvation hold made or dropped. Anything else, the queue included, is
// shared with the previous View.

// publishStep publishes the state after a committed step whose writes are
// ws. Records are taken from the writes (the copies just stored), so a View
// holds exactly what is durable.
func (e *Engine) publishStep(ws []model.Write) {
	prev := e.view.Load()
	next := &View{e: e, next: make(chan struct{}), step: prev.step + 1, tasks: prev.tasks, running: prev.running,
		wait: e.waitFor(prev), cl: prev.cl, pending: prev.pending}
	last := map[string]*model.TaskRecord{} // the step's last write of each task
	clusterChanged := false
	for _, w := range ws {
		switch {
		case w.InsertTask != nil:
			last[w.InsertTask.Name] = w.InsertTask
		case w.UpdateTask != nil:
			last[w.UpdateTask.Name] = w.UpdateTask
		case w.Cluster != nil:
			clusterChanged = true
		}
	}
	if len(last) > 0 {
		pendingDelta := map[string]int{}
		tasks, running := prev.tasks.Txn(), prev.running.Txn()
		for name, r := range last {
			var was *model.TaskRecord
			live := e.records[name] != nil
			if live {
				was = tasks.Insert(r)
			} else {
				was = tasks.Delete(name)
			}
			wasRunning := was != nil && was.State == model.StateRunning
			isRunning := live && r.State == model.StateRunning
			if isRunning {
				running.Insert(r)
			} else if wasRunning {
				running.Delete(name)
			}
			clusterChanged = clusterChanged || isRunning != wasRunning // allocations moved
			if was != nil && was.State == model.StatePending {
				pendingDelta[was.Team]--
			}
			if live && r.State == model.StatePending {
				pendingDelta[r.Team]++
			}
		}
		next.tasks, next.running = tasks.Commit(), running.Commit()
		next.pending = addPending(prev.pending, pendingDelta)
	}
	if clusterChanged || e.sched.HoldChanges() != prev.cl.holds {
		next.cl = e.readCluster()
	}
	e.view.Store(next)
	close(prev.next)
}

// waitFor is the waiting list of the View that follows prev: prev's when
// the list was built and the core's is still that one (a step without a
// cycle), the core's when it is built (a core that lists it in each
// decision), else one the loop builds when a reader asks.
func (e *Engine) waitFor(prev *View) *waitView {
	switch {
	case !e.waitFresh:
		return newWaitView()
	case prev != nil && prev.wait.isBuilt() && sameList(prev.wait.list, e.waiting):
		return prev.wait
	default:
		return builtWaitView(e.waiting)
	}
}

// publishAll publishes a View built from the whole state, as after
// recovery or a rollback: O(n log n) in live tasks, so only for those.
func (e *Engine) publishAll() {
	tasks, running := recMap{}.Txn(), recMap{}.Txn()
	pending := map[string]int{}
	for _, r := range e.records { // shared: the loop changes none in place (edit)
		tasks.Insert(r)
		if r.State == model.StatePending {
			pending[r.Team]++
		}
		if r.State == model.StateRunning {
			running.Insert(r)
		}
	}
	prev := e.view.Load()
	var step uint64
	if prev != nil {
		step = prev.step + 1
	}
	e.view.Store(&View{e: e, next: make(chan struct{}), step: step, tasks: tasks.Commit(), running: running.Commit(),
		wait: e.waitFor(prev), cl: e.readCluster(), pending: pending})
	if prev != nil {
		close(prev.next)
	}
}

// readCluster reads the cluster part of a View from the core.
func (e *Engine) readCluster() *clusterView {
	return &clusterView{name: e.cluster.Name, levels: e.sched.Levels(), policy: e.sched.Policy(), teams: e.sched.Teams(),
		catalog: e.sched.Catalog(), nodes: e.sched.Nodes(), usage: e.sched.Usage(), holds: e.sched.HoldChanges()}
}
