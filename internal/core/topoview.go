package core

import (
	"sort"
	"strconv"
	"unicode"

	"github.com/taskgov/taskgov/internal/model"
)

// TopologyView builds the topology tree of all nodes, every instance type
// together, with free and used GPUs per domain and the running tasks on each
// machine. Domains and machines are in natural name order.
func (s *Scheduler) TopologyView() model.TopologyView {
	tasksOn := map[string][]string{}
	for _, t := range s.sortedTasks() {
		if t.state != running {
			continue
		}
		for _, p := range t.pods {
			node := s.nodes[p.node].spec.Name
			tasksOn[node] = append(tasksOn[node], t.spec.Name)
		}
	}
	return BuildTopology(s.levels, s.Nodes(), tasksOn)
}

// BuildTopology is TopologyView's tree from its parts: the topology levels,
// the nodes (as Nodes returns them) and, per node name, the running tasks
// on it (one entry per pod, in submission order). The engine's published
// view builds the same tree from its own copy of these. A domain's FreeGPUs
// counts only schedulable nodes (a cordoned, drained or unhealthy node's idle
// GPUs take no new task); a machine's own FreeGPUs is its idle GPUs.
func BuildTopology(levels []string, nodes []NodeInfo, tasksOn map[string][]string) model.TopologyView {
	type key struct {
		parent *model.TopoDomain
		name   string
	}
	made := map[key]*model.TopoDomain{}
	root := &model.TopoDomain{}
	for _, n := range nodes {
		parent := root
		gpus, free := n.Capacity.GPUs, n.Free.GPUs
		for _, level := range levels {
			name := n.Spec.Labels[level]
			if name == "" {
				name = model.Unlabelled
			}
			d := made[key{parent, name}]
			if d == nil {
				d = &model.TopoDomain{Level: level, Name: name}
				made[key{parent, name}] = d
				parent.Children = append(parent.Children, d)
			}
			d.Nodes++
			d.GPUs += gpus
			if n.Schedulable {
				d.FreeGPUs += free
			}
			parent = d
		}
		leaf := &model.TopoDomain{Level: "node", Name: n.Spec.Name, Nodes: 1, GPUs: gpus, FreeGPUs: free,
			InstanceType: n.Spec.InstanceType, Schedulable: n.Schedulable, Tasks: tasksOn[n.Spec.Name], HeldFor: n.HeldFor}
		parent.Children = append(parent.Children, leaf)
	}
	var order func(ds []*model.TopoDomain)
	order = func(ds []*model.TopoDomain) {
		sort.SliceStable(ds, func(a, b int) bool { return naturalLess(ds[a].Name, ds[b].Name) })
		for _, d := range ds {
			order(d.Children)
		}
	}
	order(root.Children)
	return model.TopologyView{Levels: append([]string(nil), levels...), Roots: root.Children}
}

// naturalLess orders names with embedded numbers by value: p5-2 < p5-10.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := unicode.IsDigit(rune(a[0])), unicode.IsDigit(rune(b[0]))
		if da && db {
			na, ra := leadingNumber(a)
			nb, rb := leadingNumber(b)
			if na != nb {
				return na < nb
			}
			a, b = ra, rb
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func leadingNumber(s string) (uint64, string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, _ := strconv.ParseUint(s[:i], 10, 64)
	return n, s[i:]
}
