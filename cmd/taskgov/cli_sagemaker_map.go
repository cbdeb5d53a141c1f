package main

import (
	"fmt"
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// quotaTeam maps a ComputeQuota onto a team, starting from the team as it
// is: what HyperPod has no field for (group, namespace, reclaimWithinGroup,
// borrowWithinGroup, a type's lending limit) is kept. notes lists what
// could not be honoured.
func quotaTeam(q smComputeQuota, cur model.Team) (t model.Team, notes []string, err error) {
	where := "ComputeQuota " + q.Name
	name := q.ComputeQuotaTarget.TeamName
	if name == "" {
		return t, nil, &model.FieldError{Field: where + ".ComputeQuotaTarget.TeamName", Problem: "is empty", Fix: "name the team the quota is for"}
	}
	t = cur
	t.Name = name
	t.FairShareWeight = q.ComputeQuotaTarget.FairShareWeight
	cfg := q.ComputeQuotaConfig
	t.PreemptTeamTasks = model.PreemptTeamTasks(cfg.PreemptTeamTasks)
	if t.PreemptTeamTasks == model.PreemptLowerPriority && cur.PreemptTeamTasks == model.PreemptLowerOrNewerEqualPriority {
		// HyperPod has no LowerOrNewerEqualPriority; the export writes it as
		// LowerPriority, so a document saying LowerPriority keeps it.
		t.PreemptTeamTasks = cur.PreemptTeamTasks
	}
	t.Lending, t.BorrowLimitPercent = "", nil
	if rs := cfg.ResourceSharingConfig; rs != nil {
		t.Lending = model.Lending(rs.Strategy)
		if strings.EqualFold(rs.Strategy, "LendandBorrow") {
			t.Lending = model.LendAndBorrow // the API reference spells it both ways
		}
		t.BorrowLimitPercent = rs.BorrowLimit
	}
	t.Quotas = nil
	for i, r := range cfg.ComputeQuotaResources {
		f := fmt.Sprintf("%s.ComputeQuotaConfig.ComputeQuotaResources[%d]", where, i)
		qt := model.Quota{InstanceType: r.InstanceType}
		switch {
		case r.Count != nil:
			qt.Count = r.Count
			if r.Accelerators != nil || r.VCpu != nil || r.MemoryInGiB != nil {
				notes = append(notes, f+": Accelerators, VCpu and MemoryInGiB not used: Count whole instances is the quota")
			}
		default:
			qt.GPUs, qt.VCPU, qt.MemoryGiB = r.Accelerators, r.VCpu, r.MemoryInGiB
		}
		if len(r.AcceleratorPartition) > 0 {
			notes = append(notes, f+": AcceleratorPartition not used: taskgov does not schedule GPU partitions (MIG)")
		}
		t.Quotas = append(t.Quotas, qt)
	}
	if rs := cfg.ResourceSharingConfig; rs != nil {
		for i, b := range rs.AbsoluteBorrowLimits {
			f := fmt.Sprintf("%s.ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits[%d]", where, i)
			k := -1
			for j := range t.Quotas {
				if t.Quotas[j].InstanceType == b.InstanceType {
					k = j
				}
			}
			if k < 0 {
				t.Quotas = append(t.Quotas, model.Quota{InstanceType: b.InstanceType, GPUs: new(int64)})
				k = len(t.Quotas) - 1
			}
			t.Quotas[k].BorrowCap = &model.Amount{GPUs: b.Accelerators, VCPU: b.VCpu, MemoryGiB: b.MemoryInGiB}
			if b.Count != nil {
				notes = append(notes, f+": Count not used: taskgov caps borrowing in Accelerators, VCpu and MemoryInGiB")
			}
			if len(b.AcceleratorPartition) > 0 {
				notes = append(notes, f+": AcceleratorPartition not used: taskgov does not schedule GPU partitions (MIG)")
			}
		}
	}
	// HyperPod has no lending limit: a type's stays as it was (as with
	// `team update --quota`), so export then apply changes nothing.
	for i := range t.Quotas {
		for _, o := range cur.Quotas {
			if o.InstanceType == t.Quotas[i].InstanceType {
				t.Quotas[i].LendingLimit = o.LendingLimit
			}
		}
	}
	return t, notes, nil
}

// schedulerPolicy maps a ClusterSchedulerConfig onto the policy as it is:
// priority classes (keeping each class's grace period), FairShare and
// IdleResourceSharing. Classes make the prioritization TaskRanking, as in
// HyperPod; none make it FirstComeFirstServe. Preemption becomes Immediate:
// HyperPod's higher priority preempts lower at once, and an admin who
// applies its configuration asks for its semantics (taskgov's default,
// Payback, waits for a cheap moment; docs/SCHEDULING.md rule 10).
func schedulerPolicy(d smClusterSchedulerConfig, cur model.Policy) model.Policy {
	p := cur
	p.Preemption = model.PreemptImmediate
	grace := map[string]int{}
	for _, c := range cur.PriorityClasses {
		grace[c.Name] = c.GracePeriodSeconds
	}
	sc := d.SchedulerConfig
	p.PriorityClasses = nil
	for _, c := range sc.PriorityClasses {
		p.PriorityClasses = append(p.PriorityClasses, model.PriorityClass{Name: c.Name, Weight: c.Weight, GracePeriodSeconds: grace[c.Name]})
	}
	p.TaskPrioritization = model.FirstComeFirstServe
	if len(p.PriorityClasses) > 0 {
		p.TaskPrioritization = model.TaskRanking
	}
	switch sc.FairShare {
	case "Disabled":
		p.IdleComputeAllocation = model.IdleFirstComeFirstServe
	case "", "Enabled":
		p.IdleComputeAllocation = model.FairShare
	default:
		p.IdleComputeAllocation = model.IdleComputeAllocation(sc.FairShare) // the server refuses it by name
	}
	switch sc.IdleResourceSharing {
	case "Enabled":
		p.BorrowUnallocated = ptrTo(true)
	case "Disabled":
		p.BorrowUnallocated = ptrTo(false)
	}
	return p
}

func ptrTo[T any](v T) *T { return &v }

// exportQuota writes a team back as a CreateComputeQuota request.
func exportQuota(t model.Team, clusterArn string) smComputeQuota {
	q := smComputeQuota{Name: t.Name + "-quota", ClusterArn: clusterArn, ActivationState: "Enabled",
		ComputeQuotaTarget: smTarget{TeamName: t.Name, FairShareWeight: t.FairShareWeight}}
	cfg := &q.ComputeQuotaConfig
	cfg.PreemptTeamTasks = string(t.PreemptTeamTasks)
	if t.PreemptTeamTasks == model.PreemptLowerOrNewerEqualPriority {
		cfg.PreemptTeamTasks = string(model.PreemptLowerPriority) // HyperPod's nearest (export notes it)
	}
	cfg.ResourceSharingConfig = &smSharing{Strategy: string(t.Lending), BorrowLimit: t.BorrowLimitPercent}
	cfg.ComputeQuotaResources = []smResource{}
	for _, qt := range t.Quotas {
		cfg.ComputeQuotaResources = append(cfg.ComputeQuotaResources, smResource{InstanceType: qt.InstanceType, Count: qt.Count,
			Accelerators: qt.GPUs, VCpu: qt.VCPU, MemoryInGiB: qt.MemoryGiB})
		if b := qt.BorrowCap; b != nil {
			cfg.ResourceSharingConfig.AbsoluteBorrowLimits = append(cfg.ResourceSharingConfig.AbsoluteBorrowLimits,
				smResource{InstanceType: qt.InstanceType, Accelerators: b.GPUs, VCpu: b.VCPU, MemoryInGiB: b.MemoryGiB})
		}
	}
	return q
}

// exportScheduler writes the policy back as a CreateClusterSchedulerConfig
// request; notes lists the policy settings HyperPod has no field for.
func exportScheduler(p model.Policy, clusterArn string) (smClusterSchedulerConfig, []string) {
	d := smClusterSchedulerConfig{Name: "taskgov-policy", ClusterArn: clusterArn}
	sc := &d.SchedulerConfig
	for _, c := range p.PriorityClasses {
		sc.PriorityClasses = append(sc.PriorityClasses, smPriorityClass{Name: c.Name, Weight: c.Weight})
	}
	sc.FairShare = "Enabled"
	if p.IdleComputeAllocation == model.IdleFirstComeFirstServe {
		sc.FairShare = "Disabled"
	}
	if p.BorrowUnallocated != nil {
		sc.IdleResourceSharing = map[bool]string{true: "Enabled", false: "Disabled"}[*p.BorrowUnallocated]
	}
	var notes []string
	if p.TaskPrioritization == model.FirstComeFirstServe && len(p.PriorityClasses) > 0 {
		notes = append(notes, "taskPrioritization FirstComeFirstServe with priority classes: HyperPod ranks by its classes whenever it has some")
	}
	for _, c := range p.PriorityClasses {
		if c.GracePeriodSeconds > 0 {
			notes = append(notes, fmt.Sprintf("priority class %s: gracePeriodSeconds has no HyperPod field", c.Name))
		}
	}
	if p.PreemptionDelaySeconds > 0 {
		notes = append(notes, "preemptionDelaySeconds has no HyperPod field")
	}
	if p.Preemption != model.PreemptImmediate {
		notes = append(notes, "preemption "+string(p.Preemption)+" has no HyperPod field: HyperPod preempts at once (Immediate)")
	}
	return d, notes
}
