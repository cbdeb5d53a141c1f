package kube

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Finished pods hold a task's logs, so taskgov leaves them in place when a
// task ends. With Executor.Retention set, it deletes each one that long after
// it finished; bare pods have no ttlSecondsAfterFinished, and otherwise only
// Kubernetes' pod garbage collector (by default past 12,500 terminated pods
// cluster-wide) would ever remove them.

// pruneFinished deletes, every sweep interval until ctx ends, the managed
// pods that finished Retention ago or earlier.
func (e *Executor) pruneFinished(ctx context.Context) {
	every := min(max(e.Retention/4, time.Second), time.Minute)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			e.pruneOnce(ctx, now)
		}
	}
}

// pruneOnce deletes the finished pods whose time is up. The pod's exit has
// been reported already: the informer's cache, which this reads, shows the
// terminal phase no earlier than the handler that reports it sees it, and a
// deletion of a finished pod reports its real exit code in any case.
func (e *Executor) pruneOnce(ctx context.Context, now time.Time) int {
	ps, _ := e.pods.List(labels.Everything())
	n := 0
	for _, p := range ps {
		if _, done := exitCode(p); !done || p.DeletionTimestamp != nil {
			continue
		}
		if finishedAt(p).Add(e.Retention).After(now) {
			continue
		}
		zero := int64(0)
		uid := p.UID
		err := e.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero,
			Preconditions: &metav1.Preconditions{UID: &uid}})
		if err == nil {
			n++
		}
	}
	return n
}

// finishedAt is when a finished pod's last container ended; without
// container states (a pod that never started), its latest condition change,
// else its creation.
func finishedAt(p *corev1.Pod) time.Time {
	var at time.Time
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && t.FinishedAt.After(at) {
			at = t.FinishedAt.Time
		}
	}
	if !at.IsZero() {
		return at
	}
	for _, c := range p.Status.Conditions {
		if c.LastTransitionTime.After(at) {
			at = c.LastTransitionTime.Time
		}
	}
	if !at.IsZero() {
		return at
	}
	return p.CreationTimestamp.Time
}
