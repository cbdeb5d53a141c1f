// Package apitypes holds the shapes /api/v1 sends that are not stored
// records: a task with its queue position, a node, a usage row. The server
// fills them and the client reads them, so they are defined once.
//
// It imports model and store (for the records it extends) only.
package apitypes

import (
	"github.com/taskgov/taskgov/internal/model"
)

// Task is a task as the API shows it: its record, and while it waits, its
// place in its team's queue and why.
type Task struct {
	model.TaskRecord
	Position int               `json:"position,omitempty"`
	Reason   *model.WaitReason `json:"reason,omitempty"`
	Why      string            `json:"why,omitempty"`
	// Start is when a waiting task can start, where that can be said, and
	// on what basis (model.EstimateStart).
	Start *model.StartEstimate `json:"start,omitempty"`
}

// TaskRow is a task as the dashboard's task list shows it: its record, its
// whole request over all pods, its priority class's weight (0 when it has
// none), and while it waits, where and why.
type TaskRow struct {
	model.TaskRecord
	GPUs           int64   `json:"gpus"`
	VCPU           float64 `json:"vcpu"`
	MemoryGiB      float64 `json:"memoryGiB"`
	PriorityWeight int     `json:"priorityWeight"`
	// Position and Why: a pending task's place in its team's queue and
	// the sentence saying why it waits, as GET /api/v1/tasks/{name} says.
	Position int    `json:"position,omitempty"`
	Why      string `json:"why,omitempty"`
}

// TaskSummary is the task list's figures over the chosen teams, whatever
// the state filter or search.
type TaskSummary struct {
	Counts          map[model.TaskState]int `json:"counts"`    // tasks per state
	Preempted       int                     `json:"preempted"` // tasks preempted at least once (suspensions and failure retries are not preemptions)
	MeanWaitSeconds float64                 `json:"meanWaitSeconds"`
	MeanRunSeconds  float64                 `json:"meanRunSeconds"`
}

// Usage is one team's standing on one instance type: GPUs, and vCPU and
// memory (GiB) alongside.
type Usage struct {
	Team         string `json:"team"`
	InstanceType string `json:"instanceType"`
	QuotaGPUs    int64  `json:"quotaGPUs"`
	UsedGPUs     int64  `json:"usedGPUs"`
	BorrowedGPUs int64  `json:"borrowedGPUs"`
	LentGPUs     int64  `json:"lentGPUs"`

	QuotaVCPU      float64 `json:"quotaVCPU"`
	UsedVCPU       float64 `json:"usedVCPU"`
	BorrowedVCPU   float64 `json:"borrowedVCPU"`
	LentVCPU       float64 `json:"lentVCPU"`
	QuotaMemGiB    float64 `json:"quotaMemGiB"`
	UsedMemGiB     float64 `json:"usedMemGiB"`
	BorrowedMemGiB float64 `json:"borrowedMemGiB"`
	LentMemGiB     float64 `json:"lentMemGiB"`
	// NotPresent: the cluster has no nodes of the instance type, so the
	// quota holds nothing and nothing is lent (Lent* are 0).
	NotPresent bool `json:"notPresent,omitempty"`
}

// Node is one node as listed.
type Node struct {
	Name         string            `json:"name"`
	InstanceType string            `json:"instanceType"`
	Labels       map[string]string `json:"labels,omitempty"`
	Healthy      bool              `json:"healthy"`
	Schedulable  bool              `json:"schedulable"`
	Cordoned     bool              `json:"cordoned"`
	GPUs         int64             `json:"gpus"`
	FreeGPUs     int64             `json:"freeGPUs"`
	VCPU         float64           `json:"vcpu"`
	FreeVCPU     float64           `json:"freeVCPU"`
	MemGiB       float64           `json:"memGiB"`
	FreeMemGiB   float64           `json:"freeMemGiB"`
	// HeldFor names the task past the starvation bound this node drains for.
	HeldFor string `json:"heldFor,omitempty"`
}

// Terminal reports whether the task has finished for good.
func (t Task) Terminal() bool { return t.State.Terminal() }

// QueueGroup counts the pending tasks of one team and instance type that
// wait for one reason, and the GPUs they ask for (all pods together): the
// dashboard sets them beside the idle GPUs of that type.
type QueueGroup struct {
	Team         string         `json:"team"`
	InstanceType string         `json:"instanceType"`
	Reason       model.WaitCode `json:"reason"`
	Tasks        int            `json:"tasks"`
	GPUs         int64          `json:"gpus"`    // asked by all of them
	MinGPUs      int64          `json:"minGPUs"` // asked by the smallest
}
