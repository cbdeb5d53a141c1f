// Package apitypes holds the shapes /api/v1 sends that are not stored
// records: a task with its queue position, a node, a usage row. The server
// fills them and the client reads them, so they are defined once.
//
// It imports model and store (for the records it extends) only.
package apitypes

import (
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/store"
)

// Task is a task as the API shows it: its record, and while it waits, its
// place in its team's queue and why.
type Task struct {
	store.TaskRecord
	Position int               `json:"position,omitempty"`
	Reason   *model.WaitReason `json:"reason,omitempty"`
	Why      string            `json:"why,omitempty"`
}

// Usage is one team's standing on one instance type, in GPUs.
type Usage struct {
	Team         string `json:"team"`
	InstanceType string `json:"instanceType"`
	QuotaGPUs    int64  `json:"quotaGPUs"`
	UsedGPUs     int64  `json:"usedGPUs"`
	BorrowedGPUs int64  `json:"borrowedGPUs"`
	LentGPUs     int64  `json:"lentGPUs"`
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
	// HeldFor names the task past the starvation bound this node drains for.
	HeldFor string `json:"heldFor,omitempty"`
}

// Terminal reports whether the task has finished for good.
func (t Task) Terminal() bool { return store.Terminal(t.State) }
