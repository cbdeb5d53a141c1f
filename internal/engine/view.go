package engine

import (
	"cmp"
	"slices"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/model"
)

// View is the state one engine step committed, as readers see it: live
// task records, the queue (positions and reasons), and the cluster's nodes,
// teams, policy and usage. The engine publishes a new View after each step,
// once the step's writes are durable and before its callers are answered
// (so a caller reads its own write); readers take the latest with
// Engine.View and never wait for the loop, nor see a step half applied or
// a write that could still fail. This is how Nomad's scheduler reads a
// state snapshot rather than the live store.
//
// A View never changes once published. Publishing costs what the step
// changed, not the size of the state: task records live in a persistent
// hash trie (recmap.go: a step copies only the paths to the records it
// wrote), the
// queue is the core's Waiting slice itself (indexed on first read), and the
// cluster part is shared with the previous View unless the step changed
// nodes, teams, policy or allocations (see publish.go).
//
// Slices and maps a View returns are shared with other readers: callers
// must not change them.
type View struct {
	e       *Engine        // that published it; nil in benchmarks
	next    chan struct{}  // closed when the next View is published
	step    uint64         // steps published before this one
	tasks   recMap         // live tasks by name; records never change
	running recMap         // the live tasks in state Running
	wait    *waitView      // the queue
	pending map[string]int // pending tasks by team; shared until a step changes it
	cl      *clusterView   // shared between steps that did not change it
}

// clusterView is what the core says about the cluster, read at one step.
type clusterView struct {
	name    string
	levels  []string
	policy  model.Policy
	teams   []model.Team
	catalog model.Catalog
	nodes   []core.NodeInfo
	usage   []core.TeamUsage
	holds   uint64 // core.HoldChanges when read
}

// View returns the state of the last step the engine committed. It never
// blocks on the engine loop.
func (e *Engine) View() *View { return e.view.Load() }

// Step counts the steps published before this View; a later View of the
// same engine has a larger Step.
func (v *View) Step() uint64 { return v.step }

// Pending is how many of team's tasks are pending in this View (exact,
// kept by publishStep; O(1)).
func (v *View) Pending(team string) int { return v.pending[team] }

// LiveTasks is how many tasks are live (pending, running or suspended).
func (v *View) LiveTasks() int { return v.tasks.Len() }

// EachLive calls fn with each live task's record until it returns false.
func (v *View) EachLive(fn func(model.TaskRecord) bool) {
	v.tasks.Each(func(r *model.TaskRecord) bool { return fn(*r) })
}

// Record returns a live task's record; ok is false for a finished task or
// an unknown name.
func (v *View) Record(name string) (r model.TaskRecord, ok bool) {
	p, ok := v.tasks.Get(name)
	if !ok {
		return model.TaskRecord{}, false
	}
	return *p, true
}

// Task returns a live task with its queue position and reason when it
// waits; ok is false for a finished task or an unknown name. For a pending
// task it reads the queue, so it may answer from a later View (see queue).
func (v *View) Task(name string) (apitypes.Task, bool) {
	p, ok := v.tasks.Get(name)
	if !ok || p.State != model.StatePending {
		if !ok {
			return apitypes.Task{}, false
		}
		return apitypes.Task{TaskRecord: *p}, true
	}
	v, x := v.queue()
	if p, ok = v.tasks.Get(name); !ok {
		return apitypes.Task{}, false
	}
	t := apitypes.Task{TaskRecord: *p}
	if v.wait.err != nil {
		t.Why = "its position and reason are unknown for now: " + v.wait.err.Error()
	}
	if i, ok := x.byTask[name]; ok {
		w := x.list[i]
		reason := w.Reason
		start := model.EstimateStart(reason)
		t.Position, t.Reason, t.Why, t.Start = w.Position, &reason, reason.Message(), &start
	}
	return t, true
}

// Queue returns the pending tasks of the given teams (all if empty), team
// by team in queue order, with position and reason.
func (v *View) Queue(teams map[string]bool) []apitypes.Task {
	v, x := v.queue()
	var out []apitypes.Task
	for _, w := range x.list {
		if len(teams) > 0 && !teams[w.Team] {
			continue
		}
		if t, ok := v.waitingTask(w); ok {
			out = append(out, t)
		}
	}
	return out
}

func (v *View) waitingTask(w model.Waiting) (apitypes.Task, bool) {
	p, ok := v.tasks.Get(w.Task)
	if !ok {
		return apitypes.Task{}, false
	}
	reason := w.Reason
	start := model.EstimateStart(reason)
	return apitypes.Task{TaskRecord: *p, Position: w.Position, Reason: &reason, Why: reason.Message(), Start: &start}, true
}

// Waiting is the queue as a step's cycle left it: every pending task, team
// by team in queue order, and the View it belongs to (v or a later one,
// see queue).
func (v *View) Waiting() ([]model.Waiting, *View) {
	v, x := v.queue()
	return x.list, v
}

// ClusterName is the configured cluster name.
func (v *View) ClusterName() string { return v.cl.name }

// Levels are the topology label keys in force.
func (v *View) Levels() []string { return v.cl.levels }

// Policy is the cluster policy in force.
func (v *View) Policy() model.Policy { return v.cl.policy }

// Teams are every team's settings, with defaults filled.
func (v *View) Teams() []model.Team { return v.cl.teams }

// HasTeam reports whether a team of that name exists.
func (v *View) HasTeam(name string) bool {
	return slices.ContainsFunc(v.cl.teams, func(t model.Team) bool { return t.Name == name })
}

// Catalog is the instance types the scheduler knows.
func (v *View) Catalog() model.Catalog { return v.cl.catalog }

// Nodes is every node's state, in the core's order.
func (v *View) Nodes() []core.NodeInfo { return v.cl.nodes }

// Usage is every team's quota and use per instance type.
func (v *View) Usage() []core.TeamUsage { return v.cl.usage }

// Topology builds the topology tree (as core.Scheduler.TopologyView does)
// from the View's nodes and running tasks. It is built for each call, so
// the caller may change it.
func (v *View) Topology() model.TopologyView {
	rs := make([]*model.TaskRecord, 0, v.running.Len())
	v.running.Each(func(r *model.TaskRecord) bool {
		rs = append(rs, r)
		return true
	})
	slices.SortFunc(rs, func(a, b *model.TaskRecord) int { return cmp.Compare(a.Seq, b.Seq) })
	tasksOn := map[string][]string{}
	for _, r := range rs {
		for _, p := range r.Placement {
			tasksOn[p.Node] = append(tasksOn[p.Node], r.Name)
		}
	}
	return core.BuildTopology(v.cl.levels, v.cl.nodes, tasksOn)
}
