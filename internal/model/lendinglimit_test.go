package model

import (
	"math"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/resource"
)

// TestLendingLimitResolvesLikeAQuota: GPUs alone bound vCPU and memory by
// the instance's ratio, an explicit amount wins, an unnamed resource is
// unlimited, and no limit is Infinite (lend all, as before).
func TestLendingLimitResolvesLikeAQuota(t *testing.T) {
	p4d := NewCatalog(nil)["ml.p4d.24xlarge"] // 8 GPUs, 96 vCPU, 1152 GiB
	m5 := NewCatalog(nil)["ml.m5.4xlarge"]    // no GPUs
	g, v := int64(4), 10.0
	if got := LendingLimitVector(nil, p4d); got != resource.Infinite {
		t.Fatalf("no limit: %v", got)
	}
	if got := LendingLimitVector(&Amount{GPUs: &g}, p4d); got != resource.New(4, 48, 576) {
		t.Fatalf("GPU-only limit: %v", got)
	}
	if got := LendingLimitVector(&Amount{GPUs: &g, VCPU: &v}, p4d); got != resource.New(4, 10, 576) {
		t.Fatalf("explicit vCPU must win: %v", got)
	}
	got := LendingLimitVector(&Amount{VCPU: &v}, m5)
	if got.MilliCPU != 10000 || got.GPUs != resource.Unlimited || got.MemMiB != resource.Unlimited {
		t.Fatalf("vCPU-only limit on a CPU type: %v", got)
	}
}

// TestLendingLimitRefusals: every bad lending limit is refused with its
// field and a fix, and a good one passes.
func TestLendingLimitRefusals(t *testing.T) {
	cat := NewCatalog(nil)
	i := func(v int64) *int64 { return &v }
	f := func(v float64) *float64 { return &v }
	team := func(lending Lending, q Quota) Team {
		q.InstanceType = "ml.p5.48xlarge"
		return Team{Name: "a", Lending: lending, Quotas: []Quota{q}}
	}
	for _, c := range []struct {
		name string
		team Team
		want string // "" means valid
	}{
		{"within the quota", team(LendAndBorrow, Quota{Count: i(2), LendingLimit: &Amount{GPUs: i(8)}}), ""},
		{"the whole quota", team(LendOnly, Quota{Count: i(2), LendingLimit: &Amount{GPUs: i(16), VCPU: f(384), MemoryGiB: f(4096)}}), ""},
		{"zero", team("", Quota{GPUs: i(8), LendingLimit: &Amount{GPUs: i(0)}}), ""},
		{"above the quota's GPUs", team(LendAndBorrow, Quota{Count: i(2), LendingLimit: &Amount{GPUs: i(24)}}),
			"team.quotas[0].lendingLimit.gpus: is 24 GPUs, above the quota's 16 GPUs: a team lends only its own quota; give 0 (lend nothing) up to the quota's amount (lend all)"},
		{"above the quota's vCPU", team(LendAndBorrow, Quota{GPUs: i(8), VCPU: f(10), LendingLimit: &Amount{VCPU: f(11)}}),
			"team.quotas[0].lendingLimit.vcpu: is 11 vCPU, above the quota's 10 vCPU"},
		{"negative", team(LendAndBorrow, Quota{Count: i(2), LendingLimit: &Amount{GPUs: i(-1)}}),
			"team.quotas[0].lendingLimit.gpus: is negative"},
		{"NaN", team(LendAndBorrow, Quota{Count: i(2), LendingLimit: &Amount{MemoryGiB: f(math.NaN())}}),
			"team.quotas[0].lendingLimit.memoryGiB: is NaN"},
		{"infinite", team(LendAndBorrow, Quota{Count: i(2), LendingLimit: &Amount{VCPU: f(math.Inf(1))}}),
			"team.quotas[0].lendingLimit.vcpu: is +Inf"},
		{"no amount", team(LendAndBorrow, Quota{Count: i(2), LendingLimit: &Amount{}}),
			"team.quotas[0].lendingLimit: gives no amount"},
		{"on a team that lends nothing", team(DontLend, Quota{Count: i(2), LendingLimit: &Amount{GPUs: i(8)}}),
			"team.quotas[0].lendingLimit: is set, but the team's lending is DontLend: it lends nothing; drop lendingLimit, or set lending to Lend or LendAndBorrow"},
	} {
		errs := ValidateTeam("team", c.team, cat)
		switch {
		case c.want == "" && len(errs) > 0:
			t.Errorf("%s: refused: %v", c.name, errs)
		case c.want != "" && !strings.Contains(errs.Error(), c.want):
			t.Errorf("%s: got %v, want %q", c.name, errs, c.want)
		}
	}
}

// TestQuotaAmountRefusals: a NaN borrow cap is refused by name (it passed),
// and a quota's errors come in one order (they followed a map's).
func TestQuotaAmountRefusals(t *testing.T) {
	cat := NewCatalog(nil)
	f := func(v float64) *float64 { return &v }
	i := func(v int64) *int64 { return &v }
	nan := Team{Name: "a", Quotas: []Quota{{InstanceType: "ml.p5.48xlarge", Count: i(1),
		BorrowCap: &Amount{VCPU: f(math.NaN())}}}}
	if errs := ValidateTeam("team", nan, cat); !strings.Contains(errs.Error(), "team.quotas[0].borrowCap.vcpu: is NaN") {
		t.Fatalf("NaN borrow cap: %v", errs)
	}
	big := Team{Name: "a", Quotas: []Quota{{InstanceType: "ml.p5.48xlarge", GPUs: i(1 << 50),
		VCPU: f(1e30), MemoryGiB: f(math.Inf(1))}}}
	first := ValidateTeam("team", big, cat).Error()
	for range 20 {
		if got := ValidateTeam("team", big, cat).Error(); got != first {
			t.Fatalf("errors change order:\n%s\n%s", first, got)
		}
	}
	if !strings.Contains(first, "gpus") || !strings.Contains(first, "memoryGiB") {
		t.Fatalf("every too-large amount must be named: %s", first)
	}
}
