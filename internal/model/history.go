package model

import "time"

// Run is one execution window of a task, for usage reports.
type Run struct {
	ID           int64     `json:"id"`
	Task         string    `json:"task"`
	Team         string    `json:"team"`
	InstanceType string    `json:"instanceType"`
	Priority     string    `json:"priority,omitempty"`
	GPUs         int64     `json:"gpus"`
	VCPU         float64   `json:"vcpu"`
	BorrowedGPUs int64     `json:"borrowedGpus"` // GPUs beyond the team's quota
	StartedAt    time.Time `json:"startedAt"`
	EndedAt      time.Time `json:"endedAt,omitzero"` // zero while it runs
	Outcome      string    `json:"outcome,omitempty"`
}

// Session is one period a server ran.
type Session struct {
	StartedAt, StoppedAt time.Time // StoppedAt zero: crashed or still running
}

// Sample is the capacity and use of one instance type at one time.
type Sample struct {
	At           time.Time `json:"at"`
	InstanceType string    `json:"instanceType"`
	GPUs         float64   `json:"gpus"`
	GPUsUsed     float64   `json:"gpusUsed"`
	VCPU         float64   `json:"vcpu"`
	VCPUUsed     float64   `json:"vcpuUsed"`
	MemGiB       float64   `json:"memGiB"`
	MemUsedGiB   float64   `json:"memUsedGiB"`
}

// AuditEntry records one mutating API call (refused ones too) or one
// scheduling decision (actor "scheduler").
type AuditEntry struct {
	ID     int64     `json:"id"`
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
	Action string    `json:"action"`
	Team   string    `json:"team,omitempty"`
	Target string    `json:"target"`
	Result string    `json:"result"`
}

// AuditFilter selects audit entries; empty fields match everything.
type AuditFilter struct {
	Team, Target, Actor string
	Action              string // exact, as task.submit or policy.set
	From, To            time.Time
	AfterID             int64
	Limit               int
}

// TaskFilter selects stored tasks, in submission order.
type TaskFilter struct {
	Teams    []string  // empty: all teams
	States   []string  // empty: all states (TaskState names)
	AfterSeq int64     // pagination cursor: only tasks submitted after this one
	Since    time.Time // zero: any submission time; else submitted at or after it
	Limit    int
}
