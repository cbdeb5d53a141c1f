package main

import (
	"fmt"
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// setLendingLimits applies --lending-limit flags to the team's quota
// entries: "TYPE:gpus=N[,vcpu=N,memoryGiB=N]" sets that entry's lending
// limit, "TYPE=none" removes it. A type without a quota entry is refused:
// a team lends only its own quota.
func setLendingLimits(quotas []model.Quota, specs []string) error {
	for _, s := range specs {
		v, err := lendingLimitFlag.parse(s)
		if err != nil {
			return err
		}
		amount := &v.Amount
		if v.IsShort {
			if v.Short != "none" {
				return lendingLimitFlag.bad(s, "is not a lending limit")
			}
			amount = nil
		}
		found := false
		for k := range quotas {
			if quotas[k].InstanceType == v.Type {
				found = true
				quotas[k].LendingLimit = amount
			}
		}
		if !found && amount != nil {
			return &model.FieldError{Field: "--lending-limit", Problem: fmt.Sprintf("the team has no quota of %s to lend", v.Type),
				Fix: "give its quota with --quota first, or drop this --lending-limit"}
		}
	}
	return nil
}

// lendingLimitFlag is --lending-limit's syntax: an amount, or TYPE=none.
var lendingLimitFlag = typedAmountFlag{flag: "--lending-limit",
	fix: "use ml.p5.48xlarge:gpus=16[,vcpu=N,memoryGiB=N] (whole GPUs, amounts 0 or more), or ml.p5.48xlarge=none to lend all idle quota"}

// lendingLimits lists a team's lending limits for team describe: "none
// (lends all idle quota)" or "ml.p5.48xlarge 16 GPUs; ...".
func lendingLimits(t model.Team) string {
	if !t.Lending.Lends() {
		return "- (lends nothing)"
	}
	var parts []string
	for _, q := range t.Quotas {
		a := q.LendingLimit
		if a == nil {
			continue
		}
		var amounts []string
		if a.GPUs != nil {
			amounts = append(amounts, fmt.Sprintf("%d GPUs", *a.GPUs))
		}
		if a.VCPU != nil {
			amounts = append(amounts, fmt.Sprintf("%g vCPU", *a.VCPU))
		}
		if a.MemoryGiB != nil {
			amounts = append(amounts, fmt.Sprintf("%g GiB", *a.MemoryGiB))
		}
		parts = append(parts, q.InstanceType+" "+strings.Join(amounts, ", "))
	}
	if len(parts) == 0 {
		return "none (lends all idle quota)"
	}
	return strings.Join(parts, "; ")
}
