package main

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// checkSageMaker checks the policy and the teams that applySageMaker will
// write, all before it writes any, so that a refused document changes
// nothing (the server would refuse the same values, but only after the
// documents before it were applied). Each problem is named by its document
// and the SageMaker field it came from, as the user wrote it.
func checkSageMaker(live model.Cluster, sched *smClusterSchedulerConfig, policy model.Policy, quotas []smComputeQuota, teams []model.Team) error {
	var errs model.Errors
	if sched != nil {
		where := "ClusterSchedulerConfig " + sched.Name + ".SchedulerConfig"
		for field, v := range map[string]string{".FairShare": sched.SchedulerConfig.FairShare, ".IdleResourceSharing": sched.SchedulerConfig.IdleResourceSharing} {
			if v != "" && v != "Enabled" && v != "Disabled" {
				errs = append(errs, &model.FieldError{Field: where + field, Problem: fmt.Sprintf("unknown value %q", v), Fix: "use Enabled or Disabled"})
			}
		}
		c := model.Cluster{InstanceTypes: live.InstanceTypes, Policy: policy}
		if err := c.Validate(); err != nil && len(errs) == 0 {
			var ves model.Errors
			if !errors.As(err, &ves) {
				return err
			}
			for _, e := range ves {
				errs = append(errs, &model.FieldError{Field: where + smPolicyField(e.Field), Problem: e.Problem, Fix: e.Fix})
			}
		}
	}
	cat := model.NewCatalog(live.InstanceTypes)
	for i, t := range teams {
		for _, e := range model.ValidateTeam("team", t, cat) {
			errs = append(errs, &model.FieldError{Field: "ComputeQuota " + quotas[i].Name + smField(e.Field, quotas[i]), Problem: e.Problem, Fix: e.Fix})
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

var smQuotaIndex = regexp.MustCompile(`^\.quotas\[(\d+)\]`)

// smTeamFields names a team's fields as a ComputeQuota spells them.
var smTeamFields = map[string]string{
	".name":               ".ComputeQuotaTarget.TeamName",
	".fairShareWeight":    ".ComputeQuotaTarget.FairShareWeight",
	".lending":            ".ComputeQuotaConfig.ResourceSharingConfig.Strategy",
	".borrowLimitPercent": ".ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit",
	".preemptTeamTasks":   ".ComputeQuotaConfig.PreemptTeamTasks",
}

// smQuotaFields names a quota entry's fields as ComputeQuotaResources (or,
// for the borrow cap, AbsoluteBorrowLimits) spells them.
var smQuotaFields = map[string]string{
	"": "", ".instanceType": ".InstanceType", ".count": ".Count", ".gpus": ".Accelerators", ".vcpu": ".VCpu", ".memoryGiB": ".MemoryInGiB",
	".borrowCap.gpus": ".Accelerators", ".borrowCap.vcpu": ".VCpu", ".borrowCap.memoryGiB": ".MemoryInGiB",
}

// smField turns a team field path ("team.quotas[0].count") into the path
// of the ComputeQuota it was mapped from; quotaTeam keeps
// ComputeQuotaResources' order and appends AbsoluteBorrowLimits' types that
// have no resource entry.
func smField(f string, q smComputeQuota) string {
	f = strings.TrimPrefix(f, "team")
	if s, ok := smTeamFields[f]; ok {
		return s
	}
	m := smQuotaIndex.FindStringSubmatch(f)
	if m == nil {
		return f
	}
	i, _ := strconv.Atoi(m[1])
	rest := f[len(m[0]):]
	cfg := q.ComputeQuotaConfig
	base := fmt.Sprintf(".ComputeQuotaConfig.ComputeQuotaResources[%d]", i)
	borrow := strings.HasPrefix(rest, ".borrowCap")
	if rs := cfg.ResourceSharingConfig; rs != nil && (borrow || i >= len(cfg.ComputeQuotaResources)) {
		extra := i - len(cfg.ComputeQuotaResources) // the how-manyth borrow limit without a resource entry
		for j, b := range rs.AbsoluteBorrowLimits {
			own := hasResource(cfg.ComputeQuotaResources, b.InstanceType)
			if i < len(cfg.ComputeQuotaResources) && b.InstanceType == cfg.ComputeQuotaResources[i].InstanceType || !own && extra == 0 {
				base = fmt.Sprintf(".ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits[%d]", j)
				break
			}
			if !own {
				extra--
			}
		}
	}
	if s, ok := smQuotaFields[rest]; ok {
		return base + s
	}
	return base + rest
}

func hasResource(rs []smResource, typ string) bool {
	for _, r := range rs {
		if r.InstanceType == typ {
			return true
		}
	}
	return false
}

var smClassField = regexp.MustCompile(`^policy\.priorityClasses\[(\d+)\]\.(name|weight)$`)

// smPolicyField names a policy field as a SchedulerConfig spells it (only
// its priority classes can be wrong once FairShare and IdleResourceSharing
// are checked).
func smPolicyField(f string) string {
	if m := smClassField.FindStringSubmatch(f); m != nil {
		return fmt.Sprintf(".PriorityClasses[%s].%s", m[1], map[string]string{"name": "Name", "weight": "Weight"}[m[2]])
	}
	return ": " + f
}
