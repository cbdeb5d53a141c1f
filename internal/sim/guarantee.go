package sim

import "math"

// guaranteeMeter measures fairness.guarantee_violation_gpu_s: GPU time a
// team's guarantee (its quota, rule 1) was not honoured. A team's quota of
// an instance type is violated, at a moment, by
//
//	min(fit, room, lentOut)
//
// where room is its unused quota of the type (quota − allocation), fit the
// GPUs of its pending tasks of the type that each fit inside room (capped at
// room), and lentOut the type's quota used by other teams: their usage above
// their own quotas, less the capacity no quota covers (borrowed unallocated
// capacity is nobody's guarantee). So a violation is a task that fits inside
// its team's unused quota and waits while that quota is lent out or used by
// others. A gang larger than the team's unused quota is not one (no
// placement within the guarantee could serve it), nor a task waiting for
// idle capacity that nobody else uses (fragmentation or topology, not the
// guarantee). The older measure, min(demand, quota) − allocation over all
// types, is reported beside it as quota_shortfall_gpu_s.
type guaranteeMeter struct {
	types map[string]*typeGuarantee
	dirty bool
	rate  float64 // GPUs violated now, valid when !dirty
}

// typeGuarantee is one instance type's quotas, allocations and pending
// tasks per team.
type typeGuarantee struct {
	capacity float64
	teams    map[string]*teamGuarantee
	order    []string
}

type teamGuarantee struct {
	quota, alloc float64
	pending      map[float64]int // pending tasks by GPUs
}

func newGuaranteeMeter() *guaranteeMeter {
	return &guaranteeMeter{types: map[string]*typeGuarantee{}}
}

func (g *guaranteeMeter) typ(name string) *typeGuarantee {
	tg := g.types[name]
	if tg == nil {
		tg = &typeGuarantee{teams: map[string]*teamGuarantee{}}
		g.types[name] = tg
	}
	return tg
}

func (g *guaranteeMeter) team(typ, team string) *teamGuarantee {
	tg := g.typ(typ)
	t := tg.teams[team]
	if t == nil {
		t = &teamGuarantee{pending: map[float64]int{}}
		tg.teams[team] = t
		tg.order = append(tg.order, team)
	}
	return t
}

// addCapacity and addQuota declare the cluster.
func (g *guaranteeMeter) addCapacity(typ string, gpus float64) {
	g.typ(typ).capacity += gpus
	g.dirty = true
}

func (g *guaranteeMeter) addQuota(typ, team string, gpus float64) {
	g.team(typ, team).quota += gpus
	g.dirty = true
}

// quotaOf is team's quota of typ in GPUs (0 if none).
func (g *guaranteeMeter) quotaOf(typ, team string) float64 {
	if tg := g.types[typ]; tg != nil {
		if t := tg.teams[team]; t != nil {
			return t.quota
		}
	}
	return 0
}

// pend adds (n = 1) or removes (n = -1) a pending task of gpus GPUs.
func (g *guaranteeMeter) pend(typ, team string, gpus float64, n int) {
	t := g.team(typ, team)
	if t.pending[gpus] += n; t.pending[gpus] <= 0 {
		delete(t.pending, gpus)
	}
	g.dirty = true
}

// run adds (or, with negative gpus, removes) a running task's GPUs.
func (g *guaranteeMeter) run(typ, team string, gpus float64) {
	g.team(typ, team).alloc += gpus
	g.dirty = true
}

// violated is the GPUs whose guarantee is not honoured now.
func (g *guaranteeMeter) violated() float64 {
	if !g.dirty {
		return g.rate
	}
	g.rate, g.dirty = 0, false
	g.eachViolation(func(_, _ string, v, _ float64) { g.rate += v })
	return g.rate
}

// eachViolation calls f with each (type, team) whose guarantee is not
// honoured now, the GPUs of it (v) and the team's unused quota (room), in
// a fixed order per type.
func (g *guaranteeMeter) eachViolation(f func(typ, team string, v, room float64)) {
	for typ, tg := range g.types {
		over, quotas := 0.0, 0.0
		for _, t := range tg.teams {
			over += math.Max(0, t.alloc-t.quota)
			quotas += t.quota
		}
		lent := over - math.Max(0, tg.capacity-quotas)
		if lent <= 0 {
			continue
		}
		for _, name := range tg.order {
			t := tg.teams[name]
			room := t.quota - t.alloc
			if room <= 0 || len(t.pending) == 0 {
				continue
			}
			fit := 0.0
			for gpus, n := range t.pending {
				if gpus > 0 && gpus <= room {
					fit += gpus * float64(n)
				}
			}
			// Others' borrowing is lent by every team short of its quota;
			// this team's part of it is at most its own room.
			if v := math.Min(math.Min(fit, room), lent); v > 0 {
				f(typ, name, v, room)
			}
		}
	}
}
