package model

// Lending is a team's lending strategy.
type Lending string

// The lending strategies. Only LendAndBorrow teams borrow.
const (
	LendAndBorrow Lending = "LendAndBorrow"
	LendOnly      Lending = "Lend"
	DontLend      Lending = "DontLend"
)

// Lends reports whether the team's idle quota may be used by others.
func (l Lending) Lends() bool { return l != DontLend }

// Borrows reports whether the team may exceed its quota.
func (l Lending) Borrows() bool { return l == LendAndBorrow }

// PreemptTeamTasks says whether a team's higher-priority tasks preempt its
// lower-priority ones.
type PreemptTeamTasks string

// The within-team preemption settings. LowerOrNewerEqualPriority is
// Kueue's withinClusterQueue setting of that name: LowerPriority, and also
// the team's running tasks of the same priority class submitted strictly
// later than the preemptor.
const (
	PreemptLowerPriority             PreemptTeamTasks = "LowerPriority"
	PreemptLowerOrNewerEqualPriority PreemptTeamTasks = "LowerOrNewerEqualPriority"
	PreemptNever                     PreemptTeamTasks = "Never"
)

// Preempts reports whether the setting lets a team's tasks preempt its own.
func (p PreemptTeamTasks) Preempts() bool {
	return p == PreemptLowerPriority || p == PreemptLowerOrNewerEqualPriority
}

// ReclaimWithinGroup says which borrowed tasks of its group's other teams a
// team may preempt to get its quota back (Kueue's reclaimWithinCohort).
type ReclaimWithinGroup string

// The reclaim settings. LowerPriority compares priority-class weights under
// TaskRanking (all tasks rank equal under FirstComeFirstServe).
const (
	ReclaimAny           ReclaimWithinGroup = "Any"
	ReclaimLowerPriority ReclaimWithinGroup = "LowerPriority"
	ReclaimNever         ReclaimWithinGroup = "Never"
)

// QueueingStrategy says how a team's queue lets its tasks start (Kueue's
// ClusterQueue queueingStrategy).
type QueueingStrategy string

// The queueing strategies. BestEffortFIFO (the default, also when unset):
// a task that cannot start lets the team's later tasks try. StrictFIFO: a
// task that cannot start, other than one waiting out its retry backoff,
// keeps the team's later tasks of its instance type from starting
// (SCHEDULING.md rule 3).
const (
	BestEffortFIFO QueueingStrategy = "BestEffortFIFO"
	StrictFIFO     QueueingStrategy = "StrictFIFO"
)

// Strict reports whether the team's queue is StrictFIFO.
func (q QueueingStrategy) Strict() bool { return q == StrictFIFO }

// BorrowWithinGroupPolicy says whether a borrowing task of a team may preempt
// other teams' lower-priority borrowed tasks (Kueue's borrowWithinCohort).
type BorrowWithinGroupPolicy string

// The borrowWithinGroup policies.
const (
	BorrowWithinGroupNever         BorrowWithinGroupPolicy = "Never"
	BorrowWithinGroupLowerPriority BorrowWithinGroupPolicy = "LowerPriority"
)

// BorrowWithinGroup is a team's borrowWithinGroup setting: with policy
// LowerPriority, a task of the team that borrows may preempt borrowed tasks
// of other teams of its group whose class weight is below its own and at
// most MaxPriorityWeight (no bound when nil). Under FirstComeFirstServe all
// tasks rank equal, so it takes nothing.
type BorrowWithinGroup struct {
	Policy            BorrowWithinGroupPolicy `yaml:"policy" json:"policy"`
	MaxPriorityWeight *int                    `yaml:"maxPriorityWeight,omitempty" json:"maxPriorityWeight,omitempty"`
}

// Preempts reports whether b lets a borrowing task preempt at all.
func (b *BorrowWithinGroup) Preempts() bool {
	return b != nil && b.Policy == BorrowWithinGroupLowerPriority
}

// Quota is a team's allocation of one instance type: either Count whole
// instances, or GPUs/VCPU/MemoryGiB. From GPUs alone, vCPU and memory follow
// by the instance's ratio.
type Quota struct {
	InstanceType string   `yaml:"instanceType" json:"instanceType"`
	Count        *int64   `yaml:"count,omitempty" json:"count,omitempty"`
	GPUs         *int64   `yaml:"gpus,omitempty" json:"gpus,omitempty"`
	VCPU         *float64 `yaml:"vcpu,omitempty" json:"vcpu,omitempty"`
	MemoryGiB    *float64 `yaml:"memoryGiB,omitempty" json:"memoryGiB,omitempty"`
	// BorrowCap optionally caps, in absolute amounts, what the team may borrow
	// of this instance type on top of the percentage limit.
	BorrowCap *Amount `yaml:"borrowCap,omitempty" json:"borrowCap,omitempty"`
	// LendingLimit optionally caps what of the team's idle quota of this
	// instance type its group may borrow (Kueue's lendingLimit); the rest is
	// never lent (LendingLimitVector says how it resolves).
	LendingLimit *Amount `yaml:"lendingLimit,omitempty" json:"lendingLimit,omitempty"`
}

// Amount is an absolute amount of each resource; a nil field means no bound.
type Amount struct {
	GPUs      *int64   `yaml:"gpus,omitempty" json:"gpus,omitempty"`
	VCPU      *float64 `yaml:"vcpu,omitempty" json:"vcpu,omitempty"`
	MemoryGiB *float64 `yaml:"memoryGiB,omitempty" json:"memoryGiB,omitempty"`
}

// Team is a compute allocation.
type Team struct {
	Name      string `yaml:"name" json:"name"`
	Namespace string `yaml:"namespace,omitempty" json:"namespace,omitempty"`
	// Group is the lending group (a Kueue cohort); teams lend only within it.
	Group              string           `yaml:"group,omitempty" json:"group,omitempty"`
	FairShareWeight    *int             `yaml:"fairShareWeight,omitempty" json:"fairShareWeight,omitempty"`
	Lending            Lending          `yaml:"lending,omitempty" json:"lending,omitempty"`
	BorrowLimitPercent *int             `yaml:"borrowLimitPercent,omitempty" json:"borrowLimitPercent,omitempty"`
	PreemptTeamTasks   PreemptTeamTasks `yaml:"preemptTeamTasks,omitempty" json:"preemptTeamTasks,omitempty"`
	// ReclaimWithinGroup: Any (default), LowerPriority or Never.
	ReclaimWithinGroup ReclaimWithinGroup `yaml:"reclaimWithinGroup,omitempty" json:"reclaimWithinGroup,omitempty"`
	// BorrowWithinGroup: none (Never) by default.
	BorrowWithinGroup *BorrowWithinGroup `yaml:"borrowWithinGroup,omitempty" json:"borrowWithinGroup,omitempty"`
	// QueueingStrategy: BestEffortFIFO (default; left unset) or StrictFIFO.
	QueueingStrategy QueueingStrategy `yaml:"queueingStrategy,omitempty" json:"queueingStrategy,omitempty"`
	Quotas           []Quota          `yaml:"quotas,omitempty" json:"quotas,omitempty"`
}

// Team defaults.
const (
	DefaultFairShareWeight    = 1
	DefaultBorrowLimitPercent = 50
	// MaxBorrowLimitPercent is the largest borrow limit, SageMaker's: its
	// API shape gives ResourceSharingConfig.BorrowLimit 0 to 10000.
	MaxBorrowLimitPercent = 10000
	DefaultGroup          = "default"
	NamespacePrefix       = "hyperpod-ns-"
)

// WithDefaults returns t with every unset field filled.
func (t Team) WithDefaults() Team {
	if t.Namespace == "" {
		t.Namespace = NamespacePrefix + t.Name
	}
	if t.Group == "" {
		t.Group = DefaultGroup
	}
	if t.FairShareWeight == nil {
		t.FairShareWeight = ptr(DefaultFairShareWeight)
	}
	if t.Lending == "" {
		t.Lending = LendAndBorrow
	}
	if t.BorrowLimitPercent == nil {
		t.BorrowLimitPercent = ptr(DefaultBorrowLimitPercent)
	}
	if t.PreemptTeamTasks == "" {
		t.PreemptTeamTasks = PreemptLowerPriority
	}
	if t.ReclaimWithinGroup == "" {
		t.ReclaimWithinGroup = ReclaimAny
	}
	if t.QueueingStrategy == BestEffortFIFO {
		// The default stays unset, so that a team that names it and one
		// that does not are the same team (apply, export).
		t.QueueingStrategy = ""
	}
	return t
}
