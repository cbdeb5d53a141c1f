package model

// TaskPrioritization orders pending tasks.
type TaskPrioritization string

// The prioritization modes.
const (
	FirstComeFirstServe TaskPrioritization = "FirstComeFirstServe"
	TaskRanking         TaskPrioritization = "TaskRanking"
)

// IdleComputeAllocation decides which team borrows idle compute first.
type IdleComputeAllocation string

// The idle-compute modes. IdleFirstComeFirstServe shares its spelling with
// FirstComeFirstServe on purpose: the YAML value is the same word.
const (
	IdleFirstComeFirstServe IdleComputeAllocation = "FirstComeFirstServe"
	FairShare               IdleComputeAllocation = "FairShare"
)

// PriorityClass names a task priority; a higher Weight ranks first.
type PriorityClass struct {
	Name   string `yaml:"name" json:"name"`
	Weight int    `yaml:"weight" json:"weight"`
	// GracePeriodSeconds, if set, is the preemption grace period of tasks of
	// this class that set none themselves.
	GracePeriodSeconds int `yaml:"gracePeriodSeconds,omitempty" json:"gracePeriodSeconds,omitempty"`
}

// Policy is the cluster-wide scheduling policy. Pointer fields are optional;
// Defaults fills them.
type Policy struct {
	TaskPrioritization    TaskPrioritization    `yaml:"taskPrioritization,omitempty" json:"taskPrioritization,omitempty"`
	IdleComputeAllocation IdleComputeAllocation `yaml:"idleComputeAllocation,omitempty" json:"idleComputeAllocation,omitempty"`
	PriorityClasses       []PriorityClass       `yaml:"priorityClasses,omitempty" json:"priorityClasses,omitempty"`
	// BorrowUnallocated lets teams borrow capacity beyond the sum of all quotas.
	BorrowUnallocated *bool `yaml:"borrowUnallocated,omitempty" json:"borrowUnallocated,omitempty"`
	// FairShareRebalance lets a team below its fair share preempt borrowed tasks
	// of a team above it (FairShare only).
	FairShareRebalance *bool `yaml:"fairShareRebalance,omitempty" json:"fairShareRebalance,omitempty"`
	// FairShareMinRuntimeSeconds is how long a borrowed task runs before a
	// fair-share rebalance may preempt it.
	FairShareMinRuntimeSeconds *int64 `yaml:"fairShareMinRuntimeSeconds,omitempty" json:"fairShareMinRuntimeSeconds,omitempty"`
	// StarvationBoundSeconds is how long a task that fits its quota may wait for
	// physical room before nodes are reserved for it (one task per instance
	// type holds nodes at a time; the next waits for that one to start).
	StarvationBoundSeconds *int64 `yaml:"starvationBoundSeconds,omitempty" json:"starvationBoundSeconds,omitempty"`
	// RestartCostSeconds is the wall time a preempted task spends restarting,
	// charged per GPU as lost work when choosing victims.
	RestartCostSeconds *int64 `yaml:"restartCostSeconds,omitempty" json:"restartCostSeconds,omitempty"`
	// PreemptionDelaySeconds is how long a task waits for room to free up
	// on its own before it may preempt (default 0: at once). Capacity often
	// frees within seconds; a short delay avoids preemptions that would lose
	// work for nothing.
	PreemptionDelaySeconds float64 `yaml:"preemptionDelaySeconds,omitempty" json:"preemptionDelaySeconds,omitempty"`
	// VictimOrder is LeastLostWork (the default: least work since the last
	// checkpoint first) or MostRecentlyStarted (Kueue's order, kept for
	// comparisons in the simulator). It chooses only which victims a
	// preemption takes; whether and when one happens is decided alike
	// under both (docs/SCHEDULING.md, rule 6).
	VictimOrder VictimOrder `yaml:"victimOrder,omitempty" json:"victimOrder,omitempty"`
	// Preemption is Payback (the default: a task preempts once its wait has
	// paid for the work its victims would lose) or Immediate (as soon as the
	// rules allow).
	Preemption PreemptionTiming `yaml:"preemption,omitempty" json:"preemption,omitempty"`
	// FairSharePreemption lists the share conditions a fair-share
	// rebalance tries, in order (docs/SCHEDULING.md, rule 5): the second
	// is tried only on the candidates the first refused. Empty means
	// [LessThanOrEqualToFinalShare], the behaviour before the setting;
	// FairShareStrategySets lists the lists allowed.
	FairSharePreemption []FairShareStrategy `yaml:"fairSharePreemption,omitempty" json:"fairSharePreemption,omitempty"`
	// MaxPendingPerTeam caps the pending tasks one team may have: the
	// engine refuses a submission past it (PendingCapError: the API's 429, a
	// Kubernetes workload left un-admitted), so that one team's runaway
	// script cannot fill the server's memory and disk for every team. The
	// scheduling core does not read it.
	MaxPendingPerTeam *int `yaml:"maxPendingPerTeam,omitempty" json:"maxPendingPerTeam,omitempty"`
}

// FairShareStrategy is one share condition of a fair-share rebalance
// (Kueue's fair-sharing preemption strategies).
type FairShareStrategy string

// The fair-share strategies.
const (
	// LessThanOrEqualToFinalShare: the preemptor's team, with its task,
	// ends at or below the victim team's share after the preemption.
	LessThanOrEqualToFinalShare FairShareStrategy = "LessThanOrEqualToFinalShare"
	// LessThanInitialShare: the preemptor's team, with its task, ends
	// strictly below the victim team's share before the preemption.
	LessThanInitialShare FairShareStrategy = "LessThanInitialShare"
)

// FairShareStrategySets are the values FairSharePreemption may take (as
// in Kueue): one strategy, or the final-share one then the initial-share
// one.
var FairShareStrategySets = [][]FairShareStrategy{
	{LessThanOrEqualToFinalShare},
	{LessThanInitialShare},
	{LessThanOrEqualToFinalShare, LessThanInitialShare},
}

// FairShareStrategies is the list FairSharePreemption stands for: itself,
// or [LessThanOrEqualToFinalShare] when empty.
func (p Policy) FairShareStrategies() []FairShareStrategy {
	if len(p.FairSharePreemption) == 0 {
		return FairShareStrategySets[0]
	}
	return p.FairSharePreemption
}

// PreemptionTiming says when a task that may preempt does.
type PreemptionTiming string

// The preemption timings.
const (
	PreemptPayback   PreemptionTiming = "Payback"
	PreemptImmediate PreemptionTiming = "Immediate"
)

// VictimOrder orders preemption candidates of equal priority.
type VictimOrder string

// The victim orders.
const (
	LeastLostWork       VictimOrder = "LeastLostWork"
	MostRecentlyStarted VictimOrder = "MostRecentlyStarted"
)

// Policy defaults.
const (
	DefaultFairShareMinRuntimeSeconds = 300
	DefaultStarvationBoundSeconds     = 1800
	DefaultRestartCostSeconds         = 60
	// DefaultMaxPendingPerTeam fits the server's measured target, 100,000
	// pending tasks (docs/BENCHMARKS.md), in one team.
	DefaultMaxPendingPerTeam = 100000
	// MaxMaxPendingPerTeam bounds the setting: ten times the measured scale.
	MaxMaxPendingPerTeam = 1000000
)

func ptr[T any](v T) *T { return &v }

// WithDefaults returns p with every unset field filled.
func (p Policy) WithDefaults() Policy {
	if p.TaskPrioritization == "" {
		p.TaskPrioritization = FirstComeFirstServe
	}
	if p.IdleComputeAllocation == "" {
		p.IdleComputeAllocation = FairShare
	}
	if p.BorrowUnallocated == nil {
		p.BorrowUnallocated = ptr(true)
	}
	if p.FairShareRebalance == nil {
		p.FairShareRebalance = ptr(true)
	}
	if p.FairShareMinRuntimeSeconds == nil {
		p.FairShareMinRuntimeSeconds = ptr(int64(DefaultFairShareMinRuntimeSeconds))
	}
	if p.StarvationBoundSeconds == nil {
		p.StarvationBoundSeconds = ptr(int64(DefaultStarvationBoundSeconds))
	}
	if p.RestartCostSeconds == nil {
		p.RestartCostSeconds = ptr(int64(DefaultRestartCostSeconds))
	}
	if p.VictimOrder == "" {
		p.VictimOrder = LeastLostWork
	}
	if p.Preemption == "" {
		p.Preemption = PreemptPayback
	}
	if p.MaxPendingPerTeam == nil {
		p.MaxPendingPerTeam = ptr(DefaultMaxPendingPerTeam)
	}
	return p
}

// PendingCap is the most pending tasks one team may have (the default
// when unset).
func (p Policy) PendingCap() int {
	if p.MaxPendingPerTeam == nil {
		return DefaultMaxPendingPerTeam
	}
	return *p.MaxPendingPerTeam
}

// ClassWeight returns the weight of the named class and whether it exists.
func (p Policy) ClassWeight(name string) (int, bool) {
	for _, c := range p.PriorityClasses {
		if c.Name == name {
			return c.Weight, true
		}
	}
	return 0, false
}
