package kube

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// With a checkpoint claim, each pod mounts its task's directory of the claim
// (the same for every run) at TASKGOV_CHECKPOINT_DIR; with a root, a marker
// the task touches there comes back as a Checkpoint event.
func TestCheckpointsOnKubernetes(t *testing.T) {
	kc := kubetest.Start(t)
	c := kc.Client
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kc.CreateNode(t, p5Node("p5-0", "nn3-a", true, nil))
	root := t.TempDir()
	ex := NewExecutor(c, "busybox")
	ex.Checkpoints = Checkpoints{Claim: "checkpoints", Root: root, Every: 50 * time.Millisecond}
	if err := ex.Run(ctx); err != nil {
		t.Fatal(err)
	}
	spec := executor.StartSpec{Task: "ft", Team: "research", Command: []string{"train"}, Resumes: 1,
		Pods: []executor.Pod{{Rank: 0, Node: "p5-0", GPUs: []int{0}}}}
	if err := ex.Start(spec); err != nil {
		t.Fatal(err)
	}
	p, err := c.CoreV1().Pods("hyperpod-ns-research").Get(ctx, "ft-0-run1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vols, mounts := p.Spec.Volumes, p.Spec.Containers[0].VolumeMounts
	if len(vols) != 1 || vols[0].PersistentVolumeClaim == nil || vols[0].PersistentVolumeClaim.ClaimName != "checkpoints" {
		t.Fatalf("volumes %+v; want the claim", vols)
	}
	if len(mounts) != 1 || mounts[0].MountPath != CheckpointMount || mounts[0].SubPath != "ft" {
		t.Fatalf("mounts %+v; want the task's directory at %s", mounts, CheckpointMount)
	}
	env := map[string]string{}
	for _, e := range p.Spec.Containers[0].Env {
		env[e.Name] = e.Value
	}
	if env["TASKGOV_CHECKPOINT_DIR"] != CheckpointMount {
		t.Fatalf("TASKGOV_CHECKPOINT_DIR=%q", env["TASKGOV_CHECKPOINT_DIR"])
	}

	dir := filepath.Join(root, "hyperpod-ns-research", "ft")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Minute).Truncate(time.Second)
	marker := filepath.Join(dir, CheckpointMarker)
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(marker, at, at); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, ex)
	if !ev.Checkpoint || ev.Task != "ft" || !ev.At.Equal(at) {
		t.Fatalf("event %+v; want a checkpoint of ft at %s", ev, at)
	}

	// A new task of the name (another record) starts in an empty
	// directory; the earlier one's is kept beside it.
	if err := os.WriteFile(dir+executor.OwnerSuffix, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec.Seq, spec.Resumes = 2, 0
	if err := ex.Start(spec); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir+".1", CheckpointMarker)); err != nil {
		t.Fatalf("the earlier task's directory was not kept: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the new task's directory holds the earlier task's checkpoint")
	}
}
