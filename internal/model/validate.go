package model

import (
	"fmt"
	"math"
	"strings"
)

const maxGPUsPerNode = 64 // GPU indices are tracked in a 64-bit mask

// Bounds on amounts, so that converting them to whole milli-vCPU and MiB can
// never overflow: an instance offers at most maxPerInstance vCPU or GiB, and a
// quota or borrow cap gives at most maxQuota of anything.
const (
	maxPerInstance = 1e6
	maxQuota       = 1e9
)

// maxPolicySeconds bounds the policy's durations (a year), far inside
// time.Duration.
const maxPolicySeconds = 365 * 24 * 3600

// Validate checks the whole cluster file and returns every problem found, each
// naming its field and the fix. It does not change c.
func (c *Cluster) Validate() error {
	var errs Errors
	for i, it := range c.InstanceTypes {
		errs = append(errs, validateInstanceType(fmt.Sprintf("instanceTypes[%d]", i), it)...)
	}
	cat := NewCatalog(c.InstanceTypes)
	seenNode := map[string]bool{}
	total := len(c.Nodes)
	if total > MaxNodes { // the listed nodes alone (the groups' counts are checked below)
		errs = append(errs, fieldErr("nodes", fmt.Sprintf("declare at most %d nodes in all (node groups and nodes)", MaxNodes), "lists %d nodes", total))
	}
	for i, g := range c.NodeGroups {
		f := fmt.Sprintf("nodeGroups[%d]", i)
		if g.Name == "" {
			errs = append(errs, fieldErr(f+".name", "give the group a name; its nodes are called <name>-<index>", "is empty"))
		}
		errs = append(errs, checkInstanceType(f+".instanceType", g.InstanceType, cat)...)
		if g.Count < 0 {
			errs = append(errs, fieldErr(f+".count", "use 0 or more nodes", "is %d", g.Count))
		}
		// One error for the group that crosses the bound (or exceeds it
		// alone), not one for every later group, however small.
		before := total
		if total += max(g.Count, 0); g.Count > MaxNodes || (total > MaxNodes && before <= MaxNodes) {
			problem := fmt.Sprintf("is %d", g.Count)
			if g.Count <= MaxNodes {
				problem += fmt.Sprintf(", which brings the nodes declared to %d", total)
			}
			errs = append(errs, fieldErr(f+".count", fmt.Sprintf("declare at most %d nodes in all (node groups and nodes)", MaxNodes), "%s", problem))
		}
		if t := g.Topology; t != nil && (t.NodesPerLayer3 <= 0 || t.Layer3PerLayer2 <= 0 || t.Layer2PerLayer1 <= 0) {
			errs = append(errs, fieldErr(f+".topology", "set nodesPerLayer3, layer3PerLayer2 and layer2PerLayer1 to whole numbers of 1 or more", "has a value below 1"))
		}
		if seenNode[g.Name] {
			errs = append(errs, fieldErr(f+".name", "give each node group a distinct name", "%q is used twice", g.Name))
		}
		seenNode[g.Name] = true
	}
	for i, n := range c.Nodes {
		f := fmt.Sprintf("nodes[%d]", i)
		if n.Name == "" {
			errs = append(errs, fieldErr(f+".name", "give the node a name", "is empty"))
		}
		errs = append(errs, checkInstanceType(f+".instanceType", n.InstanceType, cat)...)
	}
	seenLevel := map[string]bool{}
	for i, l := range c.TopologyLevels {
		if l == "" || seenLevel[l] {
			errs = append(errs, fieldErr(fmt.Sprintf("topologyLevels[%d]", i), "list distinct, non-empty node label keys, top layer first", "%q is empty or repeated", l))
		}
		seenLevel[l] = true
	}
	errs = append(errs, c.Policy.validate("policy")...)
	seenTeam := map[string]bool{}
	for i, t := range c.Teams {
		f := fmt.Sprintf("teams[%d]", i)
		errs = append(errs, ValidateTeam(f, t, cat)...)
		if seenTeam[t.Name] {
			errs = append(errs, fieldErr(f+".name", "give each team a distinct name", "%q is used twice", t.Name))
		}
		seenTeam[t.Name] = true
	}
	errs = append(errs, validateImages(c.Images)...)
	if len(errs) == 0 {
		seen := map[string]bool{}
		for _, n := range c.ExpandNodes() {
			if seen[n.Name] {
				errs = append(errs, fieldErr("nodes", "rename the node or the node group so that every node name is unique", "node %q is declared twice", n.Name))
			}
			seen[n.Name] = true
		}
	}
	return errs.orNil()
}

func validateInstanceType(f string, it InstanceType) Errors {
	var errs Errors
	if it.Name == "" {
		errs = append(errs, fieldErr(f+".name", "name the instance type, for example ml.p5.48xlarge", "is empty"))
	}
	if it.GPUs < 0 || it.GPUs > maxGPUsPerNode {
		errs = append(errs, fieldErr(f+".gpus", fmt.Sprintf("use 0 to %d GPUs per instance", maxGPUsPerNode), "is %d", it.GPUs))
	}
	if !(it.VCPU > 0) || !(it.VCPU <= maxPerInstance) {
		errs = append(errs, fieldErr(f+".vcpu", fmt.Sprintf("give the vCPU count of one instance, above 0 and at most %g", maxPerInstance), "is %v", it.VCPU))
	}
	if !(it.MemoryGiB > 0) || !(it.MemoryGiB <= maxPerInstance) {
		errs = append(errs, fieldErr(f+".memoryGiB", fmt.Sprintf("give the memory of one instance in GiB, above 0 and at most %g", maxPerInstance), "is %v", it.MemoryGiB))
	}
	return errs
}

func checkInstanceType(f, name string, cat Catalog) Errors {
	if name == "" {
		return Errors{fieldErr(f, "name an instance type, for example ml.p5.48xlarge", "is empty")}
	}
	if _, ok := cat[name]; !ok {
		return Errors{fieldErr(f, "use a known type ("+strings.Join(cat.Names(), ", ")+") or declare it under instanceTypes",
			"unknown instance type %q", name)}
	}
	return nil
}

func (p Policy) validate(f string) Errors {
	var errs Errors
	switch p.TaskPrioritization {
	case "", FirstComeFirstServe, TaskRanking:
	default:
		errs = append(errs, fieldErr(f+".taskPrioritization", "use FirstComeFirstServe or TaskRanking", "unknown value %q", p.TaskPrioritization))
	}
	switch p.IdleComputeAllocation {
	case "", IdleFirstComeFirstServe, FairShare:
	default:
		errs = append(errs, fieldErr(f+".idleComputeAllocation", "use FirstComeFirstServe or FairShare", "unknown value %q", p.IdleComputeAllocation))
	}
	if p.PreemptionDelaySeconds < 0 || p.PreemptionDelaySeconds > 86400 {
		errs = append(errs, fieldErr(f+".preemptionDelaySeconds", "use 0 to 86400 seconds", "%v is out of range", p.PreemptionDelaySeconds))
	}
	switch p.Preemption {
	case "", PreemptPayback, PreemptImmediate:
	default:
		errs = append(errs, fieldErr(f+".preemption", "use Payback or Immediate", "unknown value %q", p.Preemption))
	}
	switch p.VictimOrder {
	case "", LeastLostWork, MostRecentlyStarted:
	default:
		errs = append(errs, fieldErr(f+".victimOrder", "use LeastLostWork or MostRecentlyStarted", "unknown value %q", p.VictimOrder))
	}
	errs = append(errs, checkFairShareStrategies(f+".fairSharePreemption", p.FairSharePreemption)...)
	if v := p.MaxPendingPerTeam; v != nil && (*v < 1 || *v > MaxMaxPendingPerTeam) {
		errs = append(errs, fieldErr(f+".maxPendingPerTeam", fmt.Sprintf("use 1 to %d pending tasks per team (default %d)", MaxMaxPendingPerTeam, DefaultMaxPendingPerTeam),
			"is %d", *v))
	}
	seen := map[string]bool{}
	for i, pc := range p.PriorityClasses {
		pf := fmt.Sprintf("%s.priorityClasses[%d]", f, i)
		if pc.Name == "" {
			errs = append(errs, fieldErr(pf+".name", "name the priority class, for example training", "is empty"))
		}
		if seen[pc.Name] {
			errs = append(errs, fieldErr(pf+".name", "give each priority class a distinct name", "%q is used twice", pc.Name))
		}
		seen[pc.Name] = true
		if pc.Weight < 0 || pc.Weight > 100 {
			errs = append(errs, fieldErr(pf+".weight", "use a whole number from 0 to 100", "%d is out of range", pc.Weight))
		}
		if pc.GracePeriodSeconds < 0 || pc.GracePeriodSeconds > 3600 {
			errs = append(errs, fieldErr(pf+".gracePeriodSeconds", "use 0 (the default, 30 s) to 3600 seconds", "%d is out of range", pc.GracePeriodSeconds))
		}
	}
	for name, v := range map[string]*int64{"fairShareMinRuntimeSeconds": p.FairShareMinRuntimeSeconds,
		"starvationBoundSeconds": p.StarvationBoundSeconds, "restartCostSeconds": p.RestartCostSeconds} {
		if v != nil && (*v < 0 || *v > maxPolicySeconds) {
			errs = append(errs, fieldErr(f+"."+name, fmt.Sprintf("use 0 to %d seconds (a year)", maxPolicySeconds), "is %d", *v))
		}
	}
	return errs
}

// ValidateTeam checks one team; f is the field path used in messages.
func ValidateTeam(f string, t Team, cat Catalog) Errors {
	var errs Errors
	if !ValidName(t.Name) {
		errs = append(errs, fieldErr(f+".name", "use 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit", "%q is not a valid team name", t.Name))
	}
	if w := t.FairShareWeight; w != nil && (*w < 0 || *w > 100) {
		errs = append(errs, fieldErr(f+".fairShareWeight", "use a whole number from 0 to 100", "%d is out of range", *w))
	}
	switch t.Lending {
	case "", LendAndBorrow, LendOnly, DontLend:
	default:
		errs = append(errs, fieldErr(f+".lending", "use LendAndBorrow, Lend or DontLend", "unknown value %q", t.Lending))
	}
	if b := t.BorrowLimitPercent; b != nil && (*b < 0 || *b > MaxBorrowLimitPercent) {
		errs = append(errs, fieldErr(f+".borrowLimitPercent", fmt.Sprintf("use a percentage of the team's quota from 0 to %d", MaxBorrowLimitPercent), "%d is out of range", *b))
	}
	switch t.PreemptTeamTasks {
	case "", PreemptLowerPriority, PreemptLowerOrNewerEqualPriority, PreemptNever:
	default:
		errs = append(errs, fieldErr(f+".preemptTeamTasks", "use LowerPriority, LowerOrNewerEqualPriority or Never", "unknown value %q", t.PreemptTeamTasks))
	}
	switch t.QueueingStrategy {
	case "", BestEffortFIFO, StrictFIFO:
	default:
		errs = append(errs, fieldErr(f+".queueingStrategy", "use BestEffortFIFO or StrictFIFO", "unknown value %q", t.QueueingStrategy))
	}
	switch t.ReclaimWithinGroup {
	case "", ReclaimAny, ReclaimLowerPriority, ReclaimNever:
	default:
		errs = append(errs, fieldErr(f+".reclaimWithinGroup", "use Any, LowerPriority or Never", "unknown value %q", t.ReclaimWithinGroup))
	}
	errs = append(errs, validateBorrowWithinGroup(f+".borrowWithinGroup", t)...)
	seen := map[string]bool{}
	for i, q := range t.Quotas {
		qf := fmt.Sprintf("%s.quotas[%d]", f, i)
		errs = append(errs, checkInstanceType(qf+".instanceType", q.InstanceType, cat)...)
		if seen[q.InstanceType] {
			errs = append(errs, fieldErr(qf+".instanceType", "merge the two entries into one", "%q has two quota entries", q.InstanceType))
		}
		seen[q.InstanceType] = true
		errs = append(errs, validateQuota(qf, q)...)
		errs = append(errs, validateLendingLimit(qf, q, t.Lending, cat)...)
	}
	return errs
}

func validateQuota(f string, q Quota) Errors {
	var errs Errors
	if q.Count != nil && (q.GPUs != nil || q.VCPU != nil || q.MemoryGiB != nil) {
		errs = append(errs, fieldErr(f, "give either count or gpus/vcpu/memoryGiB, not both", "sets both"))
	}
	if q.Count == nil && q.GPUs == nil && q.VCPU == nil && q.MemoryGiB == nil {
		errs = append(errs, fieldErr(f, "set count (whole instances) or gpus/vcpu/memoryGiB", "gives no amount"))
	}
	neg := func(name string, bad bool) {
		if bad {
			errs = append(errs, fieldErr(f+"."+name, "quotas cannot be negative; use 0 or more", "is negative"))
		}
	}
	negF := func(name string, p *float64) {
		switch {
		case p != nil && math.IsNaN(*p):
			errs = append(errs, fieldErr(f+"."+name, "give a number, 0 or more", "is NaN"))
		case p != nil:
			neg(name, *p < 0)
		}
	}
	neg("count", q.Count != nil && *q.Count < 0)
	neg("gpus", q.GPUs != nil && *q.GPUs < 0)
	negF("vcpu", q.VCPU)
	negF("memoryGiB", q.MemoryGiB)
	if c := q.BorrowCap; c != nil {
		neg("borrowCap.gpus", c.GPUs != nil && *c.GPUs < 0)
		negF("borrowCap.vcpu", c.VCPU)
		negF("borrowCap.memoryGiB", c.MemoryGiB)
	}
	big := func(name string, v float64) {
		if v > maxQuota || math.IsInf(v, 0) {
			errs = append(errs, fieldErr(f+"."+name, fmt.Sprintf("give at most %g", float64(maxQuota)), "is %v", v))
		}
	}
	if q.Count != nil {
		big("count", float64(*q.Count))
	}
	if q.GPUs != nil {
		big("gpus", float64(*q.GPUs))
	}
	if q.VCPU != nil {
		big("vcpu", *q.VCPU)
	}
	if q.MemoryGiB != nil {
		big("memoryGiB", *q.MemoryGiB)
	}
	if c := q.BorrowCap; c != nil {
		if c.GPUs != nil {
			big("borrowCap.gpus", float64(*c.GPUs))
		}
		if c.VCPU != nil {
			big("borrowCap.vcpu", *c.VCPU)
		}
		if c.MemoryGiB != nil {
			big("borrowCap.memoryGiB", *c.MemoryGiB)
		}
	}
	return errs
}
