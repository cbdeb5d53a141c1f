package core

import (
	"slices"
	"sort"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// lostWork is what preempting t now throws away, in GPU-seconds: the work
// since its last checkpoint (or its start, if it has none in this run) plus
// the policy's restart cost, times its GPUs.
func (s *Scheduler) lostWork(t *task, now time.Time) float64 {
	since := t.startedAt
	if t.checkpointAt.After(since) {
		since = t.checkpointAt
	}
	el := now.Sub(since).Seconds()
	if el < 0 {
		el = 0
	}
	return float64(t.total.GPUs) * (el + float64(*s.policy.RestartCostSeconds))
}

// reclaimable returns team tm's running tasks on type i that reclaim and fair
// share may take from it: every one, when the team's settled usage (without
// the tasks started in the cycle in progress) is above its quota, else none.
// Which of them go is the victim search's choice, least lost work first,
// bounded by stillBorrows. Tasks started in the cycle in progress are left
// out, and do not count towards the team's usage here, so an admission made
// earlier in a cycle never exposes an older task.
func (s *Scheduler) reclaimable(tm *team, i int) []*task {
	if s.settled(tm, i).LessEq(tm.quota[i]) {
		return nil
	}
	out := make([]*task, 0, len(tm.run[i]))
	for _, t := range tm.run[i] {
		if t.touchedIn != s.cycle {
			out = append(out, t)
		}
	}
	return out
}

// settled is team tm's usage of type i without the tasks admitted in the
// cycle in progress.
func (s *Scheduler) settled(tm *team, i int) resource.Vector {
	if tm.freshCycle != s.cycle {
		return tm.usage[i]
	}
	return tm.usage[i].Sub(tm.fresh[i])
}

// noteFresh records that t was admitted in the cycle in progress.
func (s *Scheduler) noteFresh(t *task) {
	tm := t.team
	if tm.freshCycle != s.cycle {
		if len(tm.fresh) != len(tm.usage) {
			tm.fresh = make([]resource.Vector, len(tm.usage))
		}
		clear(tm.fresh)
		tm.freshCycle = s.cycle
	}
	tm.fresh[t.typ.idx] = tm.fresh[t.typ.idx].Add(t.total)
}

// stillBorrows reports whether v, already removed in a simulated
// preemption, was taken while its team was above its quota: a team gives
// back only what it borrows, whichever of its tasks make up the amount.
func (s *Scheduler) stillBorrows(v *task) bool {
	i := v.typ.idx
	return !s.settled(v.team, i).Add(v.total).LessEq(v.team.quota[i])
}

// victim is a preemption candidate with its cost.
type victim struct {
	t    *task
	cat  int     // lower categories are taken first
	lost float64 // GPU·s its preemption throws away now
	cost float64 // lost, weighted by how often it was preempted before (bounce)
}

// victimCost is what the victim search minimises and the payback rule
// charges (but for a guaranteed task's reclaim victims: paybackPrice): the
// work v would lose now, times one plus the times it was already preempted. A task just restarted loses only its restart cost, so
// without the factor the same cheap victims were taken again and again; with
// it, each preemption makes the next one of the same task dearer (like a
// backoff), and the search turns to tasks that were not yet disturbed.
func victimCost(t *task, lost float64) float64 {
	return lost * float64(1+t.resumes)
}

// sortVictims orders candidates cheapest first: by category, then lower
// priority, then less lost work (except in blindChoice's search, Kueue's
// most recently started first), then the later start, then the later
// submission.
// The order is total, so the choice is deterministic.
func (s *Scheduler) sortVictims(vs []victim) {
	byLoss := !s.cc.blind
	sort.Slice(vs, func(a, b int) bool {
		x, y := vs[a], vs[b]
		if x.cat != y.cat {
			return x.cat < y.cat
		}
		if x.t.rank != y.t.rank {
			return x.t.rank < y.t.rank
		}
		if byLoss && x.cost != y.cost {
			return x.cost < y.cost
		}
		if !x.t.startedAt.Equal(y.t.startedAt) {
			return x.t.startedAt.After(y.t.startedAt)
		}
		return x.t.seq > y.t.seq
	})
}

// chooseVictims simulates preempting candidates, cheapest first, until
// feasible() holds, skipping any that allowed() rejects once removed, then
// gives back (the later category and higher priority first, then the most
// costly) every victim not needed: one is given back
// when feasible() still holds without it and, if fair is set, fair() holds
// for the victims still out. It returns the victims, still removed, or nil
// with the state exactly as before. It first checks that removing every
// candidate would be enough; most attempts fail there, at the cost of one
// feasibility check.
//
// Candidates' lost work is computed here, once they are known to be enough.
func (s *Scheduler) chooseVictims(cands []victim, allowed func(victim) bool, feasible func() bool, fair func(out []victim) bool) []victim {
	if !s.enoughWithout(cands, feasible) {
		return nil
	}
	presorted := s.cc.presorted
	if !presorted {
		for k := range cands {
			cands[k].lost = s.riskedWork(cands[k].t, s.costClock())
			cands[k].cost = victimCost(cands[k].t, cands[k].lost)
		}
		s.sortVictims(cands)
	}
	var chosen []victim
	ok := false
	fairTies := s.policy.IdleComputeAllocation == model.FairShare && !presorted
	for k := range cands {
		if fairTies {
			s.biggestBorrowerFirst(cands, k)
		}
		v := cands[k]
		s.unassign(v.t)
		if allowed != nil && !allowed(v) {
			s.reassign(v.t)
			s.cc.rejected = true
			continue
		}
		chosen = append(chosen, v)
		if feasible() {
			ok = true
			break
		}
	}
	if !ok {
		for k := len(chosen) - 1; k >= 0; k-- {
			s.reassign(chosen[k].t)
		}
		return nil
	}
	// Reprieve: try to keep running first the victims the order would take
	// last (the later category, then the higher priority), and among those
	// the costliest; so a lower-priority victim is never kept while a
	// higher-priority one of its category goes.
	byCost := append([]victim(nil), chosen...)
	sort.SliceStable(byCost, func(a, b int) bool {
		x, y := byCost[a], byCost[b]
		if x.cat != y.cat {
			return x.cat > y.cat
		}
		if x.t.rank != y.t.rank {
			return x.t.rank > y.t.rank
		}
		return x.cost > y.cost
	})
	kept := map[*task]bool{}
	out := func() []victim {
		var o []victim
		for _, v := range chosen {
			if !kept[v.t] {
				o = append(o, v)
			}
		}
		return o
	}
	for _, v := range byCost {
		s.reassign(v.t)
		if feasible() {
			kept[v.t] = true
			if fair == nil || fair(out()) {
				continue
			}
			delete(kept, v.t)
		}
		s.unassign(v.t)
	}
	return out()
}

// fairTieWindow bounds how far biggestBorrowerFirst looks among tied
// candidates, so that a search over thousands of identical tasks stays linear.
const fairTieWindow = 32

// biggestBorrowerFirst moves to position k, among the candidates from k on
// that tie with cands[k] in the victim order (category, priority, and cost
// or start), the first one of the team whose share of borrowed compute is
// now the highest (after the victims taken so far). Under fair share, victims
// that lose the same work are thus taken from the team that borrows the
// most, as Kueue's fair sharing does, and a reclaim leaves the borrowers
// even: none of its victims then preempts its way back by a rebalance
// (scenario kueue/fair-reclaim-one-from-each). The order of the others is
// kept.
func (s *Scheduler) biggestBorrowerFirst(cands []victim, k int) {
	x := cands[k]
	byLoss := !s.cc.blind
	best, bestShare := k, -1.0
	var last *team
	for j := k; j < len(cands) && j < k+fairTieWindow; j++ {
		y := cands[j]
		if y.cat != x.cat || y.t.rank != x.t.rank || (byLoss && y.cost != x.cost) ||
			(!byLoss && !y.t.startedAt.Equal(x.t.startedAt)) {
			break
		}
		if y.t.team == last {
			continue
		}
		last = y.t.team
		if sh := s.share(y.t.team, -1, resource.Zero); sh > bestShare {
			best, bestShare = j, sh
		}
	}
	if best != k {
		y := cands[best]
		copy(cands[k+1:best+1], cands[k:best])
		cands[k] = y
	}
}

// quotaWithout reports whether t's team fits its quota with t added once its
// own candidates are gone, which a guaranteed victim search needs.
func (s *Scheduler) quotaWithout(t *task, cands []victim) bool {
	use := t.team.usage[t.typ.idx].Add(t.total)
	for _, v := range cands {
		if v.t.team == t.team {
			use = use.Sub(v.t.total)
		}
	}
	return use.LessEq(t.team.quota[t.typ.idx])
}

// roomBound reports whether t's gang could have room once every candidate is
// gone: each of its pods needs its own node whose free-capacity key is at
// least keyFor(t), and a candidate's pod raises its node's key by at most the
// pod's own key, so at least as many nodes in scope (domain d, or the whole
// type when d is nil) must reach that key. It is a necessary condition only,
// and cheap: most victim searches fail, and this (with quotaWithout) answers
// them without stopping and restarting every candidate.
func (s *Scheduler) roomBound(t *task, cands []victim, d *domain) bool {
	it := t.typ
	k0 := keyFor(t)
	need := t.spec.Nodes
	have := it.index.atLeast(k0)
	if d != nil {
		have = d.fit(k0)
	}
	if have >= need {
		return true
	}
	if len(s.cc.gain) < len(s.nodes) {
		s.cc.gain = make([]int, len(s.nodes))
	}
	gain, touched := s.cc.gain, s.cc.touched[:0]
	defer func() {
		for _, ni := range touched {
			gain[ni] = 0
		}
		s.cc.touched = touched[:0]
	}()
	for _, v := range cands {
		for _, p := range v.t.pods {
			n := s.nodes[p.node]
			key := int(it.index.key[n.pos])
			if key < 0 || key >= k0 || (d != nil && n.dom[d.level] != d.id) {
				continue // cannot host, or already counted
			}
			if gain[p.node] == 0 {
				touched = append(touched, p.node)
			}
			before := key + gain[p.node]
			gain[p.node] += it.needKey(v.t.podOn(n))
			if before < k0 && key+gain[p.node] >= k0 {
				if have++; have >= need {
					return true
				}
			}
		}
	}
	return false
}

// enoughWithout reports whether feasible() holds with every candidate gone,
// and leaves the state as it was. It lifts only what feasible() reads (node
// capacity and GPUs, and team usage, one update per team), not the running
// lists, so the check costs a fraction of unassigning every candidate. All
// candidates run on one instance type.
func (s *Scheduler) enoughWithout(cands []victim, feasible func() bool) bool {
	if len(cands) == 0 {
		return feasible()
	}
	i := cands[0].t.typ.idx
	if len(s.cc.teamDelta) < len(s.teams) {
		s.cc.teamDelta = make([]resource.Vector, len(s.teams))
	}
	delta, teams := s.cc.teamDelta, s.cc.deltaTeams[:0]
	for _, v := range cands {
		for _, p := range v.t.pods {
			n := s.nodes[p.node]
			n.free = n.free.Add(v.t.podOn(n))
			n.freeGPUs |= p.gpus
			if afterHold(n, v.t) {
				n.afterHold = n.afterHold.Sub(v.t.podOn(n))
			}
			s.reindex(n)
		}
		if !slices.Contains(teams, v.t.team) {
			teams = append(teams, v.t.team)
		}
		delta[v.t.team.idx] = delta[v.t.team.idx].Add(v.t.total)
	}
	for _, tm := range teams {
		s.addUsage(tm, i, resource.Zero.Sub(delta[tm.idx]))
	}
	ok := feasible()
	for _, tm := range teams {
		s.addUsage(tm, i, delta[tm.idx])
		delta[tm.idx] = resource.Zero
	}
	for k := len(cands) - 1; k >= 0; k-- {
		v := cands[k]
		for _, p := range v.t.pods {
			n := s.nodes[p.node]
			n.free = n.free.Sub(v.t.podOn(n))
			n.freeGPUs &^= p.gpus
			if afterHold(n, v.t) {
				n.afterHold = n.afterHold.Add(v.t.podOn(n))
			}
			s.reindex(n)
		}
	}
	s.cc.deltaTeams = teams[:0]
	return ok
}
