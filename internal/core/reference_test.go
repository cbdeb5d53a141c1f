package core

import (
	"sort"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// This file holds deliberately simple reference versions of the core's
// optimised routines. The randomized tests compare them on random states.

// refAllUsage copies every team's usage per type, recomputed from the
// running tasks.
func refAllUsage(s *Scheduler) map[*team][]resource.Vector {
	out := map[*team][]resource.Vector{}
	for _, tm := range s.teams {
		out[tm] = make([]resource.Vector, len(s.types))
	}
	for _, t := range s.tasks {
		if t.state == running {
			out[t.team][t.typ.idx] = out[t.team][t.typ.idx].Add(t.total)
		}
	}
	return out
}

// refGivesOnlyBorrowed checks, from scratch, that what a cycle reclaimed
// (Reclaim and FairShare victims, victims) from team tm on type i was
// borrowed: tm ran above its quota before the cycle (usage before), and
// some victim was taken while tm was still above it, that is, tm without
// all the other victims exceeds its quota. A team gives back what it
// borrows and, at most, the rest of the one task that straddles its quota.
func refGivesOnlyBorrowed(tm *team, i int, before resource.Vector, victims []*task) bool {
	all := resource.Zero
	for _, v := range victims {
		all = all.Add(v.total)
	}
	for _, v := range victims {
		if !before.Sub(all).Add(v.total).LessEq(tm.quota[i]) {
			return true
		}
	}
	return len(victims) == 0
}

// refOverflow recomputes, for type i, how far all groups' borrowing exceeds
// their lenders' idle quota, from the running tasks alone.
func refOverflow(s *Scheduler, i int) resource.Vector {
	return refOverflowWith(s, i, nil, resource.Zero)
}

// refQuotaOK is the plain statement of the quota rules for team tm asking for
// r more of type i: within quota always; otherwise only a LendAndBorrow team,
// within its borrow limit, and only if the total overflow after it stays
// within the unallocated capacity borrowers may use (or does not grow).
func refQuotaOK(s *Scheduler, tm *team, i int, r resource.Vector) (ok, inQuota bool) {
	use := tm.usage[i].Add(r)
	if use.LessEq(tm.quota[i]) {
		return true, true
	}
	if !tm.spec.Lending.Borrows() {
		return false, false
	}
	limit := tm.quota[i].Percent(int64(*tm.spec.BorrowLimitPercent)).Min(tm.borrowCap[i])
	if tm.quota[i] == resource.Zero && tm.borrowCap[i] != resource.Infinite {
		limit = tm.borrowCap[i] // a zero quota borrows up to its cap
	}
	if !use.SubClamped(tm.quota[i]).LessEq(limit) {
		return false, false
	}
	before := refOverflow(s, i)
	after := refOverflowWith(s, i, tm, use)
	allowed := resource.Zero
	if *s.policy.BorrowUnallocated {
		allowed = s.types[i].sched.SubClamped(s.quotaSum[i])
	}
	return after.LessEq(allowed.Max(before)), false
}

// refOverflowWith is refOverflow with team tm's usage of type i replaced by
// use (no team's when tm is nil).
func refOverflowWith(s *Scheduler, i int, tm *team, use resource.Vector) resource.Vector {
	lend := map[string]resource.Vector{}
	bor := map[string]resource.Vector{}
	uses := refUsage(s, i)
	for _, t := range s.teams {
		u := use
		if t != tm {
			u = uses[t]
		}
		g := t.spec.Group
		if t.spec.Lending.Lends() {
			lend[g] = lend[g].Add(t.quota[i].SubClamped(u).Min(refLendingLimit(s, t, i)))
		}
		bor[g] = bor[g].Add(u.SubClamped(t.quota[i]))
	}
	total := resource.Zero
	for g := range bor {
		total = total.Add(bor[g].SubClamped(lend[g]))
	}
	return total
}

// refLendingLimit reads team t's lending limit of type i from its spec.
func refLendingLimit(s *Scheduler, t *team, i int) resource.Vector {
	for _, q := range t.spec.Quotas {
		if q.InstanceType == s.types[i].spec.Name {
			return model.LendingLimitVector(q.LendingLimit, s.types[i].spec)
		}
	}
	return resource.Infinite
}

// refPlace is placement by brute force: a single pod that names a level as
// refTreeOne places it; otherwise every schedulable node of the type
// not held for another task that can take the pod, sorted by free primary
// units (tightest first) then position; the first N.
func refPlace(s *Scheduler, t *task) []int32 {
	if ni, ok := refTreeOne(s, t); ok {
		return []int32{ni}
	}
	var fit []*node
	for _, ni := range t.typ.nodes {
		n := s.nodes[ni]
		if !n.schedulable || (n.heldFor != nil && n.heldFor != t && !spareOnHeld(n, t)) || !t.pod.LessEq(n.free) {
			continue
		}
		if t.spec.PerNode.WholeNode() && n.free != t.typ.capacity {
			continue
		}
		fit = append(fit, n)
	}
	if len(fit) < t.spec.Nodes {
		return nil
	}
	sort.SliceStable(fit, func(a, b int) bool {
		pa, pb := t.typ.primary(fit[a].free), t.typ.primary(fit[b].free)
		if pa != pb {
			return pa < pb
		}
		return fit[a].pos < fit[b].pos
	})
	out := make([]int32, t.spec.Nodes)
	for k := range out {
		out[k] = fit[k].idx
	}
	return out
}

// refUsage sums each team's running tasks of type i.
func refUsage(s *Scheduler, i int) map[*team]resource.Vector {
	out := map[*team]resource.Vector{}
	for _, t := range s.tasks {
		if t.state == running && t.typ.idx == i {
			out[t.team] = out[t.team].Add(t.total)
		}
	}
	return out
}

// refBestSpread finds by brute force the lowest spread at which t's gang
// could be placed on usable nodes (respecting a required level), and whether
// it can be placed at all.
func refBestSpread(s *Scheduler, t *task) (int, bool) {
	var usableNodes []*node
	for _, ni := range t.typ.nodes {
		n := s.nodes[ni]
		if n.schedulable && usable(n, t, false) {
			usableNodes = append(usableNodes, n)
		}
	}
	m := len(s.levels)
	for l := m - 1; l >= 0; l-- {
		count := map[int32]int{}
		for _, n := range usableNodes {
			if n.dom[l] >= 0 {
				count[n.dom[l]]++
				if count[n.dom[l]] >= t.spec.Nodes {
					return m - l, true
				}
			}
		}
		if l == t.reqLevel {
			return 0, false
		}
	}
	return m + 1, len(usableNodes) >= t.spec.Nodes
}

// refTreeOne is placeone.go's rule by brute force, for a single-node task
// that names a level on a labelled type: of the schedulable nodes in the
// tightest bucket at or above the pod's key, those whose domains from the
// named level down are least by (nodes with room for the pod, id), level by
// level (a missing label after the named level comes last); the first of
// them by position that can take the pod. ok is false where the rule does
// not apply or no such node can (placement then takes the first of the
// tightest nodes).
func refTreeOne(s *Scheduler, t *task) (int32, bool) {
	it := t.typ
	if t.spec.Nodes != 1 || it.topo.labeled == 0 || (t.reqLevel < 0 && t.spec.PreferredTopology == "") {
		return -1, false
	}
	l0 := s.levelOf(t.spec.PreferredTopology)
	if l0 < 0 {
		l0 = t.reqLevel
	}
	k0 := keyFor(t)
	key := func(n *node) int { return it.primary(n.free) }
	k := -1
	for _, ni := range it.nodes {
		if n := s.nodes[ni]; n.schedulable && key(n) >= k0 && (k < 0 || key(n) < k) {
			k = key(n)
		}
	}
	fitOf := func(m int, id int32) int {
		c := 0
		for _, ni := range it.nodes {
			if n := s.nodes[ni]; n.schedulable && n.dom[m] == id && key(n) >= k0 {
				c++
			}
		}
		return c
	}
	const missing = 1 << 30
	var best []int
	var cands []*node
	for _, ni := range it.nodes {
		n := s.nodes[ni]
		if !n.schedulable || key(n) != k || n.dom[l0] < 0 {
			continue
		}
		var path []int
		for m := l0; m < len(n.dom); m++ {
			if n.dom[m] < 0 {
				path = append(path, missing, missing)
				break
			}
			path = append(path, fitOf(m, n.dom[m]), int(n.dom[m]))
		}
		switch c := comparePaths(path, best); {
		case best == nil || c < 0:
			best, cands = path, []*node{n}
		case c == 0:
			cands = append(cands, n)
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].pos < cands[b].pos })
	for _, n := range cands {
		if usable(n, t, false) && (t.reqLevel < 0 || n.dom[t.reqLevel] >= 0) {
			return n.idx, true
		}
	}
	return -1, false
}

// comparePaths orders two paths of refTreeOne lexicographically, a prefix
// first.
func comparePaths(a, b []int) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}
