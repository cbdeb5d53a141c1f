package engine

import (
	"sort"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// QueueSummary counts the queue by team, instance type and wait reason,
// with the GPUs each group asks for, over the given teams (all if empty).
// The whole queue is counted once per waiting list (the first reader after
// a cycle changed it pays O(queue); the others O(groups)), so a dashboard
// that refreshes every 2 s does not walk 100,000 tasks each time.
func (v *View) QueueSummary(teams map[string]bool) []apitypes.QueueGroup {
	v, _ = v.queue()
	all := v.wait.groupsOf(v)
	if len(teams) == 0 {
		return all
	}
	out := make([]apitypes.QueueGroup, 0, len(all))
	for _, g := range all {
		if teams[g.Team] {
			out = append(out, g)
		}
	}
	return out
}

// groupsOf counts a built list, once per list; v resolves its tasks (any
// View that shares the list holds the same pending records).
func (w *waitView) groupsOf(v *View) []apitypes.QueueGroup {
	w.groupOnce.Do(func() {
		type key struct {
			team, typ string
			code      model.WaitCode
		}
		at := map[key]int{}
		cat := v.cl.catalog
		for _, x := range w.list {
			rec, ok := v.tasks.Get(x.Task)
			if !ok {
				continue
			}
			var gpus int64
			if it, ok := cat[rec.Spec.InstanceType]; ok {
				gpus = model.PodVector(rec.Spec.PerNode, it).GPUs * int64(max(rec.Spec.Nodes, 1))
			}
			k := key{x.Team, rec.Spec.InstanceType, x.Reason.Code}
			i, ok := at[k]
			if !ok {
				i = len(w.groups)
				at[k] = i
				w.groups = append(w.groups, apitypes.QueueGroup{Team: k.team, InstanceType: k.typ, Reason: k.code, MinGPUs: gpus})
			}
			g := &w.groups[i]
			g.Tasks++
			g.GPUs += gpus
			g.MinGPUs = min(g.MinGPUs, gpus)
		}
		sort.Slice(w.groups, func(a, b int) bool {
			ga, gb := w.groups[a], w.groups[b]
			if ga.InstanceType != gb.InstanceType {
				return ga.InstanceType < gb.InstanceType
			}
			if ga.Team != gb.Team {
				return ga.Team < gb.Team
			}
			return ga.Reason < gb.Reason
		})
	})
	return w.groups
}
