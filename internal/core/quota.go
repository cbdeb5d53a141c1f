package core

import (
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// quotaVerdict is the outcome of asking whether a team may run an amount more.
type quotaVerdict struct {
	ok      bool
	inQuota bool              // usage after stays within the team's quota
	wait    *model.WaitReason // why not, when !ok (shared: never modified)
}

// borrowLimit is how far beyond its quota team t may go on type i: its
// borrowLimitPercent of the quota, capped by borrowCap. A team with no quota
// of the type (a quota entry of zero) borrows up to its borrowCap alone, so
// a zero-quota team borrows only where an explicit cap says how much.
func (s *Scheduler) borrowLimit(t *team, i int) resource.Vector {
	if !t.spec.Lending.Borrows() {
		return resource.Zero
	}
	if !t.quota[i].AnyPositive() && t.borrowCap[i] != resource.Infinite {
		return t.borrowCap[i]
	}
	return t.quota[i].Percent(int64(*t.spec.BorrowLimitPercent)).Min(t.borrowCap[i])
}

// unallocatedAllowed is the capacity beyond all quotas that borrowers may use.
func (s *Scheduler) unallocatedAllowed(i int) resource.Vector {
	if !*s.policy.BorrowUnallocated {
		return resource.Zero
	}
	return s.types[i].sched.SubClamped(s.quotaSum[i])
}

// contributions returns what a team with usage u lends to and borrows from
// its group on type i: it lends its idle quota up to its lending limit (the
// rest of its quota is never lent, so no borrower ever holds it), and
// borrows what it uses beyond its quota.
func contributions(t *team, i int, u resource.Vector) (lend, borrow resource.Vector) {
	if t.spec.Lending.Lends() {
		lend = t.quota[i].SubClamped(u).Min(t.lendCap[i])
	}
	return lend, u.SubClamped(t.quota[i])
}

// lendable is the most team t may ever lend of type i: its quota, capped
// by its lending limit (Kueue's lendable capacity, for fair share).
func (t *team) lendable(i int) resource.Vector { return t.quota[i].Min(t.lendCap[i]) }

// refreshTeamType recomputes team t's contributions on type i from its usage
// and quota, and carries the change into its group and the global overflow.
// Every change of usage, quota or lending strategy goes through here.
func (s *Scheduler) refreshTeamType(t *team, i int) {
	g := t.group
	lend, bor := contributions(t, i, t.usage[i])
	g.lend[i] = g.lend[i].Sub(t.lendC[i]).Add(lend)
	g.borrowed[i] = g.borrowed[i].Sub(t.borC[i]).Add(bor)
	t.lendC[i], t.borC[i] = lend, bor
	s.listShareTeam(t)
	s.qm.bumpUsage()
	ov := g.borrowed[i].SubClamped(g.lend[i])
	s.overflowTotal[i] = s.overflowTotal[i].Sub(g.overflow[i]).Add(ov)
	g.overflow[i] = ov
}

// addUsage changes team t's usage on type i by delta (which may be negative).
func (s *Scheduler) addUsage(t *team, i int, delta resource.Vector) {
	t.usage[i] = t.usage[i].Add(delta)
	s.refreshTeamType(t, i)
}

// checkQuotaNow says whether team t may run amount r more of type i now
// (checkQuota asks it through the memo, quotamemo.go).
func (s *Scheduler) checkQuotaNow(t *team, i int, r resource.Vector) quotaVerdict {
	return s.quotaAt(t, i, r, t.usage[i], true)
}

// quotaAt is checkQuotaNow for team t at usage u of type i; pool false
// takes the group's pool as refusing (refusejump.go: a verdict kept from a
// state where it refused).
func (s *Scheduler) quotaAt(t *team, i int, r, u resource.Vector, pool bool) quotaVerdict {
	v, w := s.quotaValue(t, i, r, u, pool)
	if !v.ok {
		v.wait = s.record(w)
	}
	return v
}

// quotaValue is quotaAt with the reason as a value, not yet a record.
func (s *Scheduler) quotaValue(t *team, i int, r, u resource.Vector, pool bool) (quotaVerdict, model.WaitReason) {
	q := t.quota[i]
	nu := u.Add(r)
	if nu.LessEq(q) {
		return quotaVerdict{ok: true, inQuota: true}, model.WaitReason{}
	}
	name := s.types[i].spec.Name
	k, _ := nu.Exceeded(q)
	if !t.spec.Lending.Borrows() {
		return quotaVerdict{}, model.WaitReason{Code: model.QuotaExhausted, InstanceType: name, Kind: k,
			Used: u.Get(k), Limit: q.Get(k), Need: r.Get(k), Detail: string(t.spec.Lending)}
	}
	over := nu.SubClamped(q)
	limit := s.borrowLimit(t, i)
	if bk, bad := over.Exceeded(limit); bad {
		return quotaVerdict{}, model.WaitReason{Code: model.BorrowLimit, InstanceType: name, Kind: bk,
			Used: u.Get(bk), Limit: q.Get(bk), Need: r.Get(bk), Cap: limit.Get(bk)}
	}
	if !pool || !s.poolAllows(t, i, nu) {
		w := model.WaitReason{Code: model.NoIdleCompute, InstanceType: name, Kind: k,
			Used: u.Get(k), Limit: q.Get(k), Need: r.Get(k)}
		if t.group.limited[i] > 0 {
			w.Detail = model.DetailLendingLimit
		}
		return quotaVerdict{}, w
	}
	return quotaVerdict{ok: true}, model.WaitReason{}
}

// poolAllows reports whether team t may hold usage nu on type i given what
// its group lends and the unallocated capacity: no component of the total
// overflow may rise above what is allowed (a component already above it, after
// a quota cut, may not rise at all).
func (s *Scheduler) poolAllows(t *team, i int, nu resource.Vector) bool {
	g := t.group
	lend, bor := contributions(t, i, nu)
	gl := g.lend[i].Sub(t.lendC[i]).Add(lend)
	gb := g.borrowed[i].Sub(t.borC[i]).Add(bor)
	ov := gb.SubClamped(gl)
	total := s.overflowTotal[i].Sub(g.overflow[i]).Add(ov)
	allowed := s.unallocatedAllowed(i).Max(s.overflowTotal[i])
	return total.LessEq(allowed)
}

// share is team t's weighted dominant share of borrowed compute, as in
// Kueue's fair sharing: for each type and resource, what it borrows divided
// by what its group could lend, the largest of these, divided by its weight.
// extra is added to its usage of type extraType first (pass a negative type
// for none). A team of weight 0 that borrows has a share above every team of
// positive weight (1e18 times one plus its unweighted share).
func (s *Scheduler) share(t *team, extraType int, extra resource.Vector) float64 {
	best := 0.0
	for i := range s.types {
		bor := t.borC[i]
		if i == extraType {
			bor = t.usage[i].Add(extra).SubClamped(t.quota[i])
		}
		if !bor.AnyPositive() {
			continue
		}
		pool := t.group.lenderQ[i].Add(s.unallocatedAllowed(i))
		if sh := bor.ShareOf(pool); sh > best {
			best = sh
		} else if !pool.AnyPositive() && best < 1 {
			best = 1
		}
	}
	w := *t.spec.FairShareWeight
	if best == 0 {
		return 0
	}
	if w == 0 {
		// Weight 0 borrows last; among teams of weight 0, the one that
		// borrows less (unweighted) first, as Kueue compares them.
		return 1e18 * (1 + best)
	}
	return best / float64(w)
}
