package model

import (
	"fmt"

	"github.com/taskgov/taskgov/internal/resource"
)

// QuotaNotes says what an admin should know about a team's quotas, which
// are accepted all the same: a quota for an instance type the cluster has
// no nodes of (it holds nothing until such nodes join), one larger than all
// the cluster's nodes of its type (the team can never use all of it), and
// one that gives vCPU or memory but no GPUs of a GPU instance type (tasks
// asking for GPUs of the type run only on borrowed compute); and a team
// that may borrow with a borrow limit of 0 (it borrows nothing; SageMaker's
// API shape allows BorrowLimit 0 to 10000 percent). capacity is the cluster's total per instance type, over every
// node.
func QuotaNotes(t Team, cat Catalog, capacity map[string]resource.Vector) []string {
	var notes []string
	if b := t.WithDefaults(); b.Lending.Borrows() && *b.BorrowLimitPercent == 0 {
		notes = append(notes, fmt.Sprintf("team %s: lending %s with a borrow limit of 0%% borrows no idle compute; say lending Lend, or give a borrow limit of 1%% or more (SageMaker's BorrowLimit)",
			t.Name, b.Lending))
	}
	for _, q := range t.Quotas {
		it, known := cat[q.InstanceType]
		have, present := capacity[q.InstanceType]
		where := fmt.Sprintf("team %s, quota for %s", t.Name, q.InstanceType)
		if !present {
			notes = append(notes, where+": the cluster has no nodes of this type; the quota holds nothing (and lends nothing) until such nodes join")
		}
		if !known {
			continue
		}
		want := QuotaVector(q, it)
		if q.Count == nil && q.GPUs == nil && it.GPUs > 0 && (q.VCPU != nil || q.MemoryGiB != nil) {
			notes = append(notes, fmt.Sprintf("%s: gives vCPU or memory but no GPUs, so its GPU quota is 0 (tasks that ask for GPUs of this type run only on borrowed compute); add gpus (or Accelerators), or count (whole instances of %d GPUs)",
				where, it.GPUs))
		}
		if !present {
			continue
		}
		if k, over := want.Exceeded(have); over {
			notes = append(notes, fmt.Sprintf("%s: %s is more than the cluster's %s of this type; the team can never use all of it",
				where, resource.Format(k, want.Get(k)), resource.Format(k, have.Get(k))))
		}
	}
	return notes
}
