package model

import "time"

// TaskType is what a task does; it is informational for scheduling.
type TaskType string

// The task types.
const (
	Training   TaskType = "training"
	FineTuning TaskType = "fine-tuning"
	Evaluation TaskType = "evaluation"
	Inference  TaskType = "inference"
)

// Request is what one pod of a task needs on its node. All zero means the
// whole node. GPUs alone derives vCPU and memory by the instance's ratio.
type Request struct {
	GPUs      int64   `yaml:"gpus,omitempty" json:"gpus,omitempty"`
	VCPU      float64 `yaml:"vcpu,omitempty" json:"vcpu,omitempty"`
	MemoryGiB float64 `yaml:"memoryGiB,omitempty" json:"memoryGiB,omitempty"`
}

// WholeNode reports whether the request asks for entire nodes.
func (r Request) WholeNode() bool { return r.GPUs == 0 && r.VCPU == 0 && r.MemoryGiB == 0 }

// TaskSpec is what a user submits. Name is unique among live tasks.
type TaskSpec struct {
	Name         string   `yaml:"name" json:"name"`
	Team         string   `yaml:"team" json:"team"`
	Priority     string   `yaml:"priority,omitempty" json:"priority,omitempty"`
	Type         TaskType `yaml:"type,omitempty" json:"type,omitempty"`
	InstanceType string   `yaml:"instanceType" json:"instanceType"`
	Nodes        int      `yaml:"nodes,omitempty" json:"nodes,omitempty"`
	PerNode      Request  `yaml:"perNode,omitempty" json:"perNode,omitempty"`
	// SubmitTime orders the task in its queue; the core sets it to the submit
	// call's time when zero.
	SubmitTime time.Time `yaml:"submitTime,omitempty" json:"submitTime,omitzero"`
	AutoResume bool      `yaml:"autoResume,omitempty" json:"autoResume,omitempty"`
	// ResumeCheckpoints: a task reusing a finished task's name starts from
	// the checkpoints that task left in its directory. Without it a new
	// task starts with an empty checkpoint directory, and the earlier one
	// is kept beside it (SERVER.md, "Checkpoints"). Beside AutoResume, in
	// its padding: the core keeps a spec per task (core/size_test.go).
	ResumeCheckpoints bool `yaml:"resumeCheckpoints,omitempty" json:"resumeCheckpoints,omitempty"`
	MaxRetry          int  `yaml:"maxRetry,omitempty" json:"maxRetry,omitempty"`
	// RequiredTopology is a topology label key: every pod must share one
	// network node at that level, or the task waits.
	RequiredTopology string `yaml:"requiredTopology,omitempty" json:"requiredTopology,omitempty"`
	// PreferredTopology is a topology label key: the tightest level that fits
	// is tried first, climbing one layer at a time, then anywhere.
	PreferredTopology string `yaml:"preferredTopology,omitempty" json:"preferredTopology,omitempty"`
	// NodeSelector confines every pod to nodes carrying each of these
	// labels with these values (a Kubernetes workload's nodeSelector beyond
	// its instance type, e.g. HyperPod's deep-health-check-status: Passed).
	// Empty: any node of the type.
	NodeSelector map[string]string `yaml:"nodeSelector,omitempty" json:"nodeSelector,omitempty"`

	// What runs (the executor's business; the core ignores these).
	// Command is the program and its arguments. Empty with an Image: the
	// image's entrypoint runs (a Kubernetes pod's; on the local executor,
	// the argv the cluster file's images section maps the image to).
	Command []string `yaml:"command,omitempty" json:"command,omitempty"`
	// Args follow the command, or the image's entrypoint when Command is
	// empty, as a Kubernetes container's args do.
	Args []string          `yaml:"args,omitempty" json:"args,omitempty"`
	Env  map[string]string `yaml:"env,omitempty" json:"env,omitempty"`
	// Image is the container image on Kubernetes; on the local executor it
	// matters only without a Command (Cluster.Images).
	Image string `yaml:"image,omitempty" json:"image,omitempty"`
	// ImagePullPolicy is the pod's imagePullPolicy on Kubernetes (Always,
	// IfNotPresent or Never; empty: Kubernetes' default), as hyp's
	// --pull-policy gives it; the local executor ignores it.
	ImagePullPolicy string `yaml:"imagePullPolicy,omitempty" json:"imagePullPolicy,omitempty"`
	// GracePeriodSeconds is how long a preempted pod has between SIGTERM and
	// SIGKILL to save a checkpoint; 0 means the default (30).
	GracePeriodSeconds int `yaml:"gracePeriodSeconds,omitempty" json:"gracePeriodSeconds,omitempty"`
}

// DefaultGracePeriodSeconds is the preemption grace period when a task sets none.
const DefaultGracePeriodSeconds = 30

// WithDefaults returns s with every unset field filled.
func (s TaskSpec) WithDefaults() TaskSpec {
	if s.Nodes == 0 {
		s.Nodes = 1
	}
	if s.Type == "" {
		s.Type = Training
	}
	return s
}
