package httpapi

import (
	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/resource"
)

// vcpu and gib show a vector's vCPU and memory; an unlimited component
// shows as -1.
func vcpu(v resource.Vector) float64 {
	if v.MilliCPU == resource.Unlimited {
		return -1
	}
	return float64(v.MilliCPU) / 1000
}

func gib(v resource.Vector) float64 {
	if v.MemMiB == resource.Unlimited {
		return -1
	}
	return float64(v.MemMiB) / 1024
}

// clusterCapacity is the cluster's total of each instance type it has nodes
// of, every node counted (cordoned and unhealthy ones too).
func clusterCapacity(v *engine.View) map[string]resource.Vector {
	out := map[string]resource.Vector{}
	for _, n := range v.Nodes() {
		out[n.Spec.InstanceType] = out[n.Spec.InstanceType].Add(n.Capacity)
	}
	return out
}

// usageRow is one team's standing on one instance type as the API shows it.
func usageRow(u core.TeamUsage) apitypes.Usage {
	return apitypes.Usage{Team: u.Team, InstanceType: u.InstanceType,
		QuotaGPUs: u.Quota.GPUs, UsedGPUs: u.Used.GPUs, BorrowedGPUs: u.Borrowed.GPUs, LentGPUs: u.Lent.GPUs,
		QuotaVCPU: vcpu(u.Quota), UsedVCPU: vcpu(u.Used), BorrowedVCPU: vcpu(u.Borrowed), LentVCPU: vcpu(u.Lent),
		QuotaMemGiB: gib(u.Quota), UsedMemGiB: gib(u.Used), BorrowedMemGiB: gib(u.Borrowed), LentMemGiB: gib(u.Lent)}
}
