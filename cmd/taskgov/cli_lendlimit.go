package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// setLendingLimits applies --lending-limit flags to the team's quota
// entries: "TYPE:gpus=N[,vcpu=N,memoryGiB=N]" sets that entry's lending
// limit, "TYPE=none" removes it. A type without a quota entry is refused:
// a team lends only its own quota.
func setLendingLimits(quotas []model.Quota, specs []string) error {
	bad := func(s, problem string) error {
		return &model.FieldError{Field: "--lending-limit", Problem: fmt.Sprintf("%q %s", s, problem),
			Fix: "use ml.p5.48xlarge:gpus=16[,vcpu=N,memoryGiB=N], or ml.p5.48xlarge=none to lend all idle quota"}
	}
	for _, s := range specs {
		typ, amount, limit := "", (*model.Amount)(nil), true
		if t, v, ok := strings.Cut(s, "="); ok && !strings.Contains(t, ":") {
			if v != "none" {
				return bad(s, "is not a lending limit")
			}
			typ, limit = t, false
		} else {
			t, rest, ok := strings.Cut(s, ":")
			if !ok {
				return bad(s, "is not a lending limit")
			}
			typ, amount = t, &model.Amount{}
			for _, kv := range strings.Split(rest, ",") {
				k, v, ok := strings.Cut(kv, "=")
				x, err := strconv.ParseFloat(v, 64)
				if !ok || err != nil {
					return bad(s, "is not a lending limit")
				}
				switch k {
				case "gpus":
					if x != float64(int64(x)) {
						return bad(s, "gives a fraction of a GPU")
					}
					g := int64(x)
					amount.GPUs = &g
				case "vcpu":
					amount.VCPU = &x
				case "memoryGiB":
					amount.MemoryGiB = &x
				default:
					return bad(s, "names an unknown resource "+strconv.Quote(k))
				}
			}
		}
		found := false
		for k := range quotas {
			if quotas[k].InstanceType == typ {
				found = true
				quotas[k].LendingLimit = amount
			}
		}
		if !found && limit {
			return &model.FieldError{Field: "--lending-limit", Problem: fmt.Sprintf("the team has no quota of %s to lend", typ),
				Fix: "give its quota with --quota first, or drop this --lending-limit"}
		}
	}
	return nil
}

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
