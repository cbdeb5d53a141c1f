// Package executor defines how taskgov runs the pods of admitted tasks. The
// engine calls an Executor after it has persisted a decision; executors report
// back through Events. The local executor runs pods as child processes; a
// Kubernetes executor (pods bound to nodes, graceful delete) implements the
// same interface.
//
// It imports nothing from taskgov but model. It must never import core,
// store or the HTTP server.
package executor

import (
	"errors"
	"io"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Pod is one pod of a task, on one node.
type Pod struct {
	Rank int
	Node string
	GPUs []int
}

// StartSpec is everything an executor needs to start a task's pods.
type StartSpec struct {
	Task string
	Team string
	Pods []Pod
	// Command is the program and its arguments; empty: the image's
	// entrypoint (RunChecker).
	Command []string
	// Args follow the command or the entrypoint (a container's args).
	Args  []string
	Env   map[string]string
	Image string // container image
	// ImagePullPolicy is the container's imagePullPolicy (Kubernetes
	// only; empty: the cluster's default).
	ImagePullPolicy string
	// Resumes counts earlier runs of this task; the checkpoint directory is
	// the same for every run.
	Resumes int
	// Seq identifies the task record (a finished task's name may be reused);
	// 0 leaves the checkpoint directory the name's (ClaimCheckpointDir).
	Seq int64
	// KeepCheckpoints: a new task of a reused name starts from the
	// checkpoints the earlier task left, instead of an empty directory.
	KeepCheckpoints bool
	// Key is the task's idempotency key, if its submission sent one (a
	// Kubernetes workload's names its object).
	Key string
}

// Event reports something a pod did.
type Event struct {
	Task string
	Rank int
	// Run is the StartSpec.Resumes of the run the pod belonged to, so that a
	// late event of an earlier run is not taken for the current one's.
	Run int
	At  time.Time
	// Exited: the pod's process ended with ExitCode (-1 if killed by a signal).
	Exited   bool
	ExitCode int
	// Checkpoint: the pod reported a checkpoint (by writing its checkpoint file).
	Checkpoint bool
}

// ErrGone is wrapped by Start's error when what the task stands for is gone
// (a Kubernetes object deleted while no taskgov leader ran): the engine then
// deletes the task, as a delete of its object does, instead of failing it.
var ErrGone = errors.New("the task's object is gone")

// Executor runs pods. Implementations must be safe for concurrent use.
type Executor interface {
	// Start starts every pod of a task. It returns an error if any pod could
	// not start; pods already started are then stopped. An error wrapping
	// ErrGone asks the engine to delete the task.
	Start(spec StartSpec) error
	// Stop sends every pod of a task a termination signal, then kills it after
	// grace. Each pod still reports Exited. Stopping a task with no running
	// pods does nothing.
	Stop(task string, grace time.Duration)
	// Logs returns a pod's captured stdout and stderr, across runs. A log
	// that cannot be read at any offset (Kubernetes') should also have a
	// method Window(context.Context, model.LogWindow) (model.LogPart, error)
	// that reads only the part asked for, until the context ends: the API
	// then never reads the whole of it.
	Logs(task string, rank int) (io.ReadCloser, error)
	// Handles returns opaque process handles of a running task, so that a
	// restarted server can make sure nothing from before still runs.
	Handles(task string) []int
	// Events delivers pod events; the engine reads it.
	Events() <-chan Event
}

// RunChecker is an executor that cannot run every task the API accepts:
// the local executor runs a task without a command only when the cluster
// file maps its image to an entrypoint. The API asks it at submission, so
// that such a task is refused there, with the fix, and never stored.
type RunChecker interface {
	// CheckRun returns nil when the executor can run spec's command (or
	// its image's entrypoint), else a *model.FieldError naming the fix.
	// It must not block: it reads the executor's configuration only.
	CheckRun(spec model.TaskSpec) error
}

// Adopter is an executor whose pods outlive the server (Kubernetes). On
// start the engine adopts the runs whose pods are still where it planned
// them instead of requeueing them.
type Adopter interface {
	// Alive reports whether every pod of the task's run exists, is not being
	// deleted, and is bound to its planned node (finished pods count: their
	// exits arrive as events).
	Alive(task string, run int, pods []Pod) bool
	// RemoveOthers deletes every pod it manages that is not of an adopted
	// run (keep maps task to run), waits until they are gone, and returns
	// how many it deleted.
	RemoveOthers(keep map[string]int) int
}
