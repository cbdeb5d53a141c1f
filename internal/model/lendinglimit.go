package model

import (
	"math"

	"github.com/taskgov/taskgov/internal/resource"
)

// LendingLimitVector resolves a quota entry's optional lending limit (Kueue's
// lendingLimit): the most of the team's idle quota of the type that its group
// may borrow. It reads like a quota: GPUs alone also bound vCPU and memory by
// the instance's ratio, an explicit vCPU or memory wins, and a resource the
// limit does not name (directly or by that ratio) is unlimited. Nil is no
// limit: the team lends all its idle quota.
func LendingLimitVector(a *Amount, it InstanceType) resource.Vector {
	if a == nil {
		return resource.Infinite
	}
	return applyAmount(resource.Infinite, a.GPUs, a.VCPU, a.MemoryGiB, &it)
}

// validateLendingLimit checks quota entry q's lending limit (f names the
// entry): an amount that is set, not negative, and at most the quota it
// limits, on a team that lends. cat resolves the quota; an unknown type is
// reported elsewhere.
func validateLendingLimit(f string, q Quota, lending Lending, cat Catalog) Errors {
	l := q.LendingLimit
	if l == nil {
		return nil
	}
	f += ".lendingLimit"
	if !lending.Lends() {
		return Errors{fieldErr(f, "drop lendingLimit, or set lending to Lend or LendAndBorrow", "is set, but the team's lending is DontLend: it lends nothing")}
	}
	if l.GPUs == nil && l.VCPU == nil && l.MemoryGiB == nil {
		return Errors{fieldErr(f, "set gpus, vcpu or memoryGiB (the most of the idle quota others may borrow), or drop lendingLimit", "gives no amount")}
	}
	var errs Errors
	bad := func(name, problem string, args ...any) {
		errs = append(errs, fieldErr(f+"."+name, "give 0 (lend nothing) up to the quota's amount (lend all)", problem, args...))
	}
	quota, known := resource.Vector{}, false
	if it, ok := cat[q.InstanceType]; ok && validateQuota("", q) == nil {
		quota, known = QuotaVector(q, it), true
	}
	above := func(name string, got int64, k resource.Kind) {
		if known && got > quota.Get(k) {
			bad(name, "is %s, above the quota's %s: a team lends only its own quota", resource.Format(k, got), resource.Format(k, quota.Get(k)))
		}
	}
	if g := l.GPUs; g != nil {
		switch {
		case *g < 0:
			bad("gpus", "is negative")
		case *g > maxQuota:
			bad("gpus", "is %d", *g)
		default:
			above("gpus", *g, resource.GPU)
		}
	}
	for _, c := range []struct {
		name string
		p    *float64
		kind resource.Kind
	}{{"vcpu", l.VCPU, resource.CPU}, {"memoryGiB", l.MemoryGiB, resource.Memory}} {
		switch {
		case c.p == nil:
		case *c.p < 0 || math.IsNaN(*c.p):
			bad(c.name, "is %v", *c.p)
		case *c.p > maxQuota || math.IsInf(*c.p, 0):
			bad(c.name, "is %v", *c.p)
		default:
			above(c.name, resource.New(0, *c.p, *c.p).Get(c.kind), c.kind)
		}
	}
	return errs
}
