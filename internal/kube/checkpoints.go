package kube

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/taskgov/taskgov/internal/executor"
)

// CheckpointMount is where a pod finds its checkpoint directory; it is also
// its TASKGOV_CHECKPOINT_DIR, as with the local executor.
const CheckpointMount = "/var/run/taskgov/checkpoint"

// CheckpointMarker is the file a task touches after saving a checkpoint
// (the local executor's convention).
const CheckpointMarker = ".taskgov-checkpoint"

// Checkpoints is the checkpoint storage of Kubernetes tasks. Claim names a
// PersistentVolumeClaim that exists in every team namespace (on EKS, an EFS
// volume); each pod mounts its task's subdirectory of it, the same for every
// run, so a requeued task resumes from its checkpoint. Root, if set, is
// where taskgov itself sees that storage, as ROOT/<namespace>/<task>/: it
// then watches each running task's marker file and reports checkpoints,
// so that preemption counts only the work since the last one.
type Checkpoints struct {
	Claim string
	Root  string
	// Every is how often Root is polled (default 2 s).
	Every time.Duration
}

// mount adds the claim's task subdirectory to p, if a claim is set.
func (c Checkpoints) mount(p *corev1.Pod, task string) {
	if c.Claim == "" {
		return
	}
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "taskgov-checkpoint",
		VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.Claim}}})
	ct := &p.Spec.Containers[0]
	ct.VolumeMounts = append(ct.VolumeMounts, corev1.VolumeMount{Name: "taskgov-checkpoint", MountPath: CheckpointMount, SubPath: task})
	ct.Env = append(ct.Env, corev1.EnvVar{Name: "TASKGOV_CHECKPOINT_DIR", Value: CheckpointMount})
}

// claim gives a new task of a reused name an empty directory unless it
// keeps the earlier task's (executor.ClaimCheckpointDir), where taskgov sees
// the storage; without a root the directory is the name's.
func (c Checkpoints) claim(ns string, spec executor.StartSpec) error {
	if c.Claim == "" || c.Root == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(c.Root, ns), 0o755); err != nil {
		return fmt.Errorf("checkpoint root: %w", err)
	}
	if _, err := executor.ClaimCheckpointDir(filepath.Join(c.Root, ns, spec.Task), spec); err != nil {
		return fmt.Errorf("task %s: %w", spec.Task, err)
	}
	return nil
}

// watchCheckpoints polls the marker of every task with a live pod and
// reports a Checkpoint event when its modification time moves on.
func (e *Executor) watchCheckpoints(ctx context.Context) {
	every := e.Checkpoints.Every
	if every <= 0 {
		every = 2 * time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	seen := map[string]time.Time{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		pods, err := e.pods.List(labels.Everything())
		if err != nil {
			continue
		}
		live := map[string]string{} // task → namespace
		for _, p := range pods {
			if _, done := exitCode(p); !done && p.DeletionTimestamp == nil {
				live[p.Labels[LabelTask]] = p.Namespace
			}
		}
		for _, task := range sortedNames(live) {
			fi, err := os.Stat(filepath.Join(e.Checkpoints.Root, live[task], task, CheckpointMarker))
			if err != nil || !fi.ModTime().After(seen[task]) {
				continue
			}
			seen[task] = fi.ModTime()
			e.events <- executor.Event{Task: task, At: fi.ModTime(), Checkpoint: true}
		}
	}
}
