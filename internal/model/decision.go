package model

import "time"

// PodPlacement puts one pod of a gang on a node.
type PodPlacement struct {
	Rank int    `json:"rank"`
	Node string `json:"node"`
	// GPUs are the indices of the node's GPUs assigned to the pod.
	GPUs []int `json:"gpus,omitempty"`
}

// Admission starts a whole gang. The applier must stop every task in WaitFor
// (this decision's victims on the same nodes) before starting the pods.
type Admission struct {
	Task         string         `json:"task"`
	Team         string         `json:"team"`
	InstanceType string         `json:"instanceType"`
	Pods         []PodPlacement `json:"pods"`
	// Borrowed is true when the task runs beyond its team's quota.
	Borrowed bool `json:"borrowed,omitempty"`
	// BorrowedGPUs is the part of the task's GPUs beyond its team's quota.
	BorrowedGPUs int64    `json:"borrowedGPUs,omitempty"`
	WaitFor      []string `json:"waitFor,omitempty"`
	// Spread is how far apart the pods are: 0 one node, then one more for
	// each topology level climbed (1: one layer-3 network node, 2: one
	// layer-2, 3: one layer-1, 4: crosses layer 1). -1 when the nodes carry
	// no topology labels.
	Spread int `json:"spread"`
	// BestSpread is the lowest spread any placement could have had when the
	// decision was made; Spread == BestSpread is a locality-optimal placement.
	BestSpread int `json:"bestSpread"`
}

// PreemptReason says why a running task is stopped and requeued.
type PreemptReason string

// The preemption reasons.
const (
	// WithinTeamPriority: a higher-priority task of the same team needed its quota.
	WithinTeamPriority PreemptReason = "WithinTeamPriority"
	// Reclaim: the lending team took back capacity it is guaranteed.
	Reclaim PreemptReason = "Reclaim"
	// FairShareReason: a team below its fair share took idle compute back.
	FairShareReason PreemptReason = "FairShare"
	// BorrowWithinGroupReason: a borrowing task of higher priority took
	// another team's borrowed task (its team's borrowWithinGroup).
	BorrowWithinGroupReason PreemptReason = "BorrowWithinGroup"
	// QuotaReduced: the team's quota was lowered below what it runs.
	QuotaReduced PreemptReason = "QuotaReduced"
	// NodeLost: a node under the task went away or became unhealthy.
	NodeLost PreemptReason = "NodeLost"
	// NodeDrained: an admin drained a node under the task.
	NodeDrained PreemptReason = "NodeDrained"
	// Suspended: a user suspended the task; it is not requeued.
	Suspended PreemptReason = "Suspended"
)

// Preemption stops a running task, which returns to its queue in its place.
type Preemption struct {
	Task   string        `json:"task"`
	Team   string        `json:"team"`
	Reason PreemptReason `json:"reason"`
	// For is the task this makes room for; empty for QuotaReduced and NodeLost.
	For string `json:"for,omitempty"`
	// LostGPUSeconds is the work since the last checkpoint plus restart cost.
	LostGPUSeconds float64 `json:"lostGPUSeconds"`
}

// Decision is the output of one scheduling cycle.
type Decision struct {
	Time        time.Time    `json:"time"`
	Preemptions []Preemption `json:"preemptions,omitempty"`
	Admissions  []Admission  `json:"admissions,omitempty"`
	// Waiting lists every pending task, team by team in queue order. Callers
	// must treat it as read-only: an unchanged cycle returns the same slice.
	Waiting []Waiting `json:"waiting,omitempty"`
}
