package client

import (
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Task is a task as the API returns it.
type Task struct {
	Name         string               `json:"name"`
	Team         string               `json:"team"`
	Seq          int64                `json:"seq"`
	Spec         model.TaskSpec       `json:"spec"`
	State        string               `json:"state"`
	SubmittedAt  time.Time            `json:"submittedAt"`
	StartedAt    time.Time            `json:"startedAt,omitzero"`
	FinishedAt   time.Time            `json:"finishedAt,omitzero"`
	CheckpointAt time.Time            `json:"checkpointAt,omitzero"`
	Resumes      int                  `json:"resumes"`
	Retries      int                  `json:"retries"`
	Placement    []model.PodPlacement `json:"placement,omitempty"`
	Message      string               `json:"message,omitempty"`
	Position     int                  `json:"position,omitempty"`
	Reason       *model.WaitReason    `json:"reason,omitempty"`
	Why          string               `json:"why,omitempty"`
}

// Event is one entry of a task's history.
type Event struct {
	ID      int64     `json:"id"`
	Task    string    `json:"task"`
	Team    string    `json:"team"`
	At      time.Time `json:"at"`
	Kind    string    `json:"kind"`
	Message string    `json:"message"`
}

// Usage is one team's standing on one instance type.
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
}

// Token is an issued credential (never its secret).
type Token struct {
	ID        string    `json:"id"`
	Role      string    `json:"role"`
	Team      string    `json:"team,omitempty"`
	Note      string    `json:"note,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	RevokedAt time.Time `json:"revokedAt,omitzero"`
}
