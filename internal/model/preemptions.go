package model

import "time"

// PreemptionRecord is one preemption the scheduler made, as the store
// keeps it for the list of recent preemptions: the victim (stopped and
// requeued), what it made room for (empty for QuotaReduced and NodeLost)
// and what it cost. A suspension is not one.
type PreemptionRecord struct {
	ID            int64         `json:"id"`
	At            time.Time     `json:"at"`
	Task          string        `json:"task"`
	Team          string        `json:"team"`
	Reason        PreemptReason `json:"reason"`
	Preemptor     string        `json:"preemptor,omitempty"`
	PreemptorTeam string        `json:"preemptorTeam,omitempty"`
	// GPUs is the victim's over all its pods.
	GPUs int64 `json:"gpus"`
	// WorkGPUSeconds is the work since its last checkpoint (or its start)
	// that was lost; RestartGPUSeconds the policy's restart cost charged
	// beside it (SCHEDULING.md rule 6). Their sum is the core's
	// LostGPUSeconds, by which victims are chosen.
	WorkGPUSeconds    float64 `json:"workGPUSeconds"`
	RestartGPUSeconds float64 `json:"restartGPUSeconds"`
}

// PreemptionFilter selects recent preemptions, newest first.
type PreemptionFilter struct {
	// Teams: empty, every preemption; else those whose victim or
	// preemptor is of one of them.
	Teams    []string
	BeforeID int64 // paging: only those older than this id; 0: from the newest
	Limit    int
}
