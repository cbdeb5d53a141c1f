package kube

import (
	"context"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
)

// Alive implements executor.Adopter from the pod cache: each rank of the run
// has its pod, bound to the planned node and not being deleted.
func (e *Executor) Alive(task string, run int, pods []executor.Pod) bool {
	ps, err := e.pods.List(labels.SelectorFromSet(labels.Set{LabelTask: task, LabelRun: strconv.Itoa(run)}))
	if err != nil || len(ps) != len(pods) {
		return false
	}
	byRank := map[string]string{}
	for _, p := range ps {
		if p.DeletionTimestamp != nil || p.Spec.NodeName == "" {
			return false
		}
		byRank[p.Labels[LabelRank]] = p.Spec.NodeName
	}
	for _, want := range pods {
		if byRank[strconv.Itoa(want.Rank)] != want.Node {
			return false
		}
	}
	return true
}

// RemoveOthers implements executor.Adopter: it deletes, with the default
// grace period (at once on a node whose kubelet is not Ready), each managed
// pod that is not of an adopted run, and waits up to two minutes for them to
// be gone so that no node is booked twice.
func (e *Executor) RemoveOthers(keep map[string]int) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sel := metav1.ListOptions{LabelSelector: LabelManagedBy + "=" + ManagedByValue}
	stray := func() ([]string, error) {
		pods, err := e.client.CoreV1().Pods("").List(ctx, sel)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, p := range pods.Items {
			run, ok := keep[p.Labels[LabelTask]]
			if ok && strconv.Itoa(run) == p.Labels[LabelRun] {
				continue
			}
			out = append(out, p.Namespace+"/"+p.Name+"/"+p.Spec.NodeName)
		}
		return out, nil
	}
	first, err := stray()
	if err != nil {
		return 0
	}
	for _, id := range first {
		f := strings.SplitN(id, "/", 3)
		grace := e.deleteGrace(f[2], model.DefaultGracePeriodSeconds)
		_ = e.client.CoreV1().Pods(f[0]).Delete(ctx, f[1], metav1.DeleteOptions{GracePeriodSeconds: &grace})
	}
	for left := first; len(left) > 0 && ctx.Err() == nil; {
		time.Sleep(500 * time.Millisecond)
		if l, err := stray(); err == nil {
			left = l
		}
	}
	return len(first)
}

var _ executor.Adopter = (*Executor)(nil)
