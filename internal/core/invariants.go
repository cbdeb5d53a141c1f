package core

import (
	"fmt"

	"github.com/taskgov/taskgov/internal/resource"
)

// CheckInvariants recomputes node and team accounting from the running tasks
// and compares it with the incremental bookkeeping, and checks the limits a
// completed cycle guarantees: no node over capacity, no GPU given twice, no
// team above its quota plus borrow limit, no team lending beyond its lending
// limit, no DontLend team lending, group pools that add up, and at
// most one task holding nodes of each instance type. It is
// O(state) and meant for tests, the simulator's checked mode and debugging.
func (s *Scheduler) CheckInvariants() error {
	free := make([]resource.Vector, len(s.nodes))
	gpus := make([]uint64, len(s.nodes))
	after := make([]resource.Vector, len(s.nodes))
	for i, n := range s.nodes {
		free[i] = n.capacity
		gpus[i] = fullMask(n.capacity.GPUs)
	}
	for _, tm := range s.teams {
		for i := range s.types {
			use := resource.Zero
			for _, t := range tm.run[i] {
				if t.state != running || t.team != tm || t.typ.idx != i {
					return fmt.Errorf("task %s is listed as running on team %s type %s but is not", t.spec.Name, tm.spec.Name, s.types[i].spec.Name)
				}
				use = use.Add(t.total)
				for _, p := range t.pods {
					free[p.node] = free[p.node].Sub(t.podOn(s.nodes[p.node]))
					if afterHold(s.nodes[p.node], t) {
						after[p.node] = after[p.node].Add(t.podOn(s.nodes[p.node]))
					}
					if gpus[p.node]&p.gpus != p.gpus {
						return fmt.Errorf("node %s: a GPU of task %s is given twice", s.nodes[p.node].spec.Name, t.spec.Name)
					}
					gpus[p.node] &^= p.gpus
				}
			}
			if use != tm.usage[i] {
				return fmt.Errorf("team %s type %s: usage %v, but its running tasks add up to %v", tm.spec.Name, s.types[i].spec.Name, tm.usage[i], use)
			}
			if limit := tm.quota[i].Add(s.borrowLimit(tm, i)); !use.LessEq(limit) {
				return fmt.Errorf("team %s type %s: usage %v above quota plus borrow limit %v", tm.spec.Name, s.types[i].spec.Name, use, limit)
			}
			if lend, bor := contributions(tm, i, use); lend != tm.lendC[i] || bor != tm.borC[i] {
				return fmt.Errorf("team %s type %s: stale lend/borrow bookkeeping", tm.spec.Name, s.types[i].spec.Name)
			}
			if !tm.lendC[i].LessEq(tm.lendCap[i]) {
				return fmt.Errorf("team %s lends %v of %s, above its lending limit %v", tm.spec.Name, tm.lendC[i], s.types[i].spec.Name, tm.lendCap[i])
			}
			if !tm.spec.Lending.Lends() && tm.lendC[i].AnyPositive() {
				return fmt.Errorf("team %s lends %v of %s but its strategy is DontLend", tm.spec.Name, tm.lendC[i], s.types[i].spec.Name)
			}
		}
	}
	if err := s.checkGroupPools(); err != nil {
		return err
	}
	holders := make([]*task, len(s.types))
	held := make([]int, len(s.types))
	for _, n := range s.nodes {
		h := n.heldFor
		if h == nil {
			continue
		}
		i := n.typ.idx
		if holders[i] != nil && holders[i] != h {
			return fmt.Errorf("type %s: both %s and %s hold nodes", n.typ.spec.Name, holders[i].spec.Name, h.spec.Name)
		}
		holders[i] = h
		held[i]++
	}
	for i, it := range s.types {
		if holders[i] != it.holder {
			return fmt.Errorf("type %s: recorded holder is not the task holding its nodes", it.spec.Name)
		}
		if h := it.holder; h != nil && held[i] != len(it.held) {
			return fmt.Errorf("type %s: %d nodes are held, but its holder %s lists %d", it.spec.Name, held[i], h.spec.Name, len(it.held))
		}
		if it.holder == nil && len(it.held) > 0 {
			return fmt.Errorf("type %s: %d nodes are listed as held without a holder", it.spec.Name, len(it.held))
		}
	}
	if err := s.checkQueues(); err != nil {
		return err
	}
	for i, n := range s.nodes {
		if after[i] != n.afterHold {
			return fmt.Errorf("node %s: %v placed since its hold, but the pods placed since add up to %v", n.spec.Name, n.afterHold, after[i])
		}
		if !resource.Zero.LessEq(free[i]) {
			return fmt.Errorf("node %s is over capacity: free %v", n.spec.Name, free[i])
		}
		if free[i] != n.free || gpus[i] != n.freeGPUs {
			return fmt.Errorf("node %s: free %v/%b, but its pods leave %v/%b", n.spec.Name, n.free, n.freeGPUs, free[i], gpus[i])
		}
	}
	return nil
}

// checkGroupPools recomputes each group's pools from its teams: what they
// lend and borrow now, what they may lend at most (lenderQ) and how many keep
// part of their quota by a lending limit.
func (s *Scheduler) checkGroupPools() error {
	type pools struct {
		lend, borrowed, lenderQ []resource.Vector
		limited                 []int
	}
	want := map[*group]*pools{}
	for _, g := range s.groups {
		n := len(s.types)
		want[g] = &pools{make([]resource.Vector, n), make([]resource.Vector, n), make([]resource.Vector, n), make([]int, n)}
	}
	for _, tm := range s.teams {
		p := want[tm.group]
		for i := range s.types {
			p.lend[i] = p.lend[i].Add(tm.lendC[i])
			p.borrowed[i] = p.borrowed[i].Add(tm.borC[i])
			if tm.spec.Lending.Lends() {
				p.lenderQ[i] = p.lenderQ[i].Add(tm.quota[i].Min(tm.lendCap[i]))
				if !tm.quota[i].LessEq(tm.lendCap[i]) {
					p.limited[i]++
				}
			}
		}
	}
	for _, g := range s.groups {
		p := want[g]
		for i := range s.types {
			if g.lend[i] != p.lend[i] || g.borrowed[i] != p.borrowed[i] || g.lenderQ[i] != p.lenderQ[i] || g.limited[i] != p.limited[i] {
				return fmt.Errorf("group %s type %s: pools lend %v borrowed %v lendable %v limited %d, but its teams add up to %v, %v, %v, %d",
					g.name, s.types[i].spec.Name, g.lend[i], g.borrowed[i], g.lenderQ[i], g.limited[i], p.lend[i], p.borrowed[i], p.lenderQ[i], p.limited[i])
			}
		}
	}
	return nil
}
