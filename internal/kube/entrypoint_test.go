package kube

import (
	"context"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// TestPodRunsTheImageEntrypoint: against a real API server, a task with an
// image and no command becomes a pod whose container has that image and
// no command, so the image's entrypoint runs, with the task's args as the
// container's args; a task with a command keeps both, as Kubernetes runs a
// container's command followed by its args.
func TestPodRunsTheImageEntrypoint(t *testing.T) {
	kc := kubetest.Start(t)
	c := kc.Client
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kc.CreateNode(t, p5Node("p5-0", "nn3-a", true, nil))
	ex := NewExecutor(c, "busybox")
	if err := ex.Run(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		task          string
		command, args []string
	}{
		{"entrypoint", nil, nil},
		{"entrypoint-args", nil, []string{"--epochs=3", "--lr=0.1"}},
		{"command-args", []string{"python3", "train.py"}, []string{"--epochs=3"}},
	} {
		spec := executor.StartSpec{Task: tc.task, Team: "research", Image: "pytorch/pytorch:latest", Command: tc.command, Args: tc.args,
			Pods: []executor.Pod{{Rank: 0, Node: "p5-0"}}}
		if err := ex.Start(spec); err != nil {
			t.Fatalf("%s: %v", tc.task, err)
		}
		p, err := c.CoreV1().Pods("hyperpod-ns-research").Get(ctx, tc.task+"-0-run0", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ct := p.Spec.Containers[0]
		if ct.Image != "pytorch/pytorch:latest" || !reflect.DeepEqual(ct.Command, tc.command) || !reflect.DeepEqual(ct.Args, tc.args) {
			t.Errorf("%s: container image %q command %q args %q; want %q, %q, %q", tc.task, ct.Image, ct.Command, ct.Args, "pytorch/pytorch:latest", tc.command, tc.args)
		}
	}
}
