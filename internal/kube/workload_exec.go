package kube

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
)

var everything = labels.Everything()

// wrun is one admitted run of a workload: the nodes the core chose (one
// per rank), the pods placed so far, and whether taskgov is stopping it.
type wrun struct {
	run      int
	nodes    []string
	assigned map[types.UID]string
	stopping bool // stopping and grace: guarded by Workloads.mu
	grace    int64
}

func (w *Workloads) workload(task string) (wkey, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k, ok := w.byTask[task]
	return k, ok
}

// Start admits a workload: it records the nodes, unsuspends the object
// (kinds with suspend) and lets reconcile place each gated pod on its node.
// Other tasks' pods are the pod Executor's.
func (w *Workloads) Start(spec executor.StartSpec) error {
	k, ok := w.workload(spec.Task)
	if !ok && IsWorkloadTask(spec.Task, spec.Key, spec.Command, spec.Image) {
		// Its object is gone (deleted while no leader ran): sweep deletes
		// the task; it must not run as an API task.
		return fmt.Errorf("kubernetes: the object of task %s is gone (deleted while no taskgov leader ran): %w", spec.Task, executor.ErrGone)
	}
	if !ok {
		return w.Executor.Start(spec)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u := w.object(k)
	if u == nil {
		return fmt.Errorf("kubernetes: %s was deleted before it started: %w", k, executor.ErrGone)
	}
	r := &wrun{run: spec.Resumes, assigned: map[types.UID]string{}}
	for _, p := range spec.Pods {
		r.nodes = append(r.nodes, p.Node)
	}
	w.mu.Lock()
	w.runs[spec.Task] = r
	w.mu.Unlock()
	if k.kind.SuspendPath != nil && k.kind.Suspended(u) {
		if err := w.patch(ctx, k, k.kind.SuspendPatch(false)); err != nil {
			w.mu.Lock()
			delete(w.runs, spec.Task)
			w.mu.Unlock()
			return err
		}
	}
	w.event(ctx, u, corev1.EventTypeNormal, "Admitted", fmt.Sprintf("taskgov admitted run %d of task %s on %s", spec.Resumes+1, spec.Task, strings.Join(r.nodes, ", ")))
	w.queue.Add(k)
	return nil
}

// Stop stops a workload's run: a suspendable kind is suspended (its
// controller deletes the pods with their termination grace period);
// otherwise taskgov deletes the placed pods with grace, and the owner's
// replacements wait at the scheduling gate. The run's exits are reported
// once no placed pod is left.
func (w *Workloads) Stop(task string, grace time.Duration) {
	k, ok := w.workload(task)
	if !ok {
		w.Executor.Stop(task, grace)
		return
	}
	w.mu.Lock()
	r := w.runs[task]
	if r != nil {
		r.stopping, r.grace = true, int64(grace/time.Second)
	}
	w.mu.Unlock()
	if r == nil {
		return
	}
	if u := w.object(k); u != nil {
		w.event(context.Background(), u, corev1.EventTypeNormal, "Stopping", fmt.Sprintf("taskgov stops run %d of task %s (grace %v)", r.run+1, task, grace))
	}
	w.queue.Add(k)
}

// Alive implements executor.Adopter: a workload's run is alive when its
// object exists, is not suspended, and every placed pod sits on a node of
// the run. The run is then taken back as it was.
func (w *Workloads) Alive(task string, run int, pods []executor.Pod) bool {
	k, ok := w.workload(task)
	if !ok {
		return w.Executor.Alive(task, run, pods)
	}
	u := w.object(k)
	if u == nil || k.kind.Suspended(u) {
		return false
	}
	r := &wrun{run: run, assigned: map[types.UID]string{}}
	for _, p := range pods {
		r.nodes = append(r.nodes, p.Node)
	}
	free := append([]string(nil), r.nodes...)
	for _, p := range w.podsOf(k) {
		if p.Spec.NodeName == "" || terminal(p) {
			continue
		}
		if p.Labels[LabelRun] != strconv.Itoa(run) || !take(&free, p.Spec.NodeName) {
			return false
		}
	}
	w.mu.Lock()
	w.runs[task] = r
	w.mu.Unlock()
	return true
}

// RemoveOthers implements executor.Adopter: the pod Executor's strays, and
// every governed workload not adopted that still has placed pods is held
// (suspended, or its pods deleted); it waits up to two minutes for them to
// be gone so that no node is booked twice.
func (w *Workloads) RemoveOthers(keep map[string]int) int {
	n := w.Executor.RemoveOthers(keep)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w.mu.Lock()
	var held []wkey
	for task, k := range w.byTask {
		if _, ok := keep[task]; !ok {
			held = append(held, k)
		}
	}
	w.mu.Unlock()
	for _, k := range held {
		if u := w.object(k); u != nil && len(w.live(k)) > 0 {
			n++
			_ = w.hold(ctx, k, u, model.DefaultGracePeriodSeconds)
		}
	}
	for ctx.Err() == nil {
		left := 0
		for _, k := range held {
			left += len(w.live(k))
		}
		if left == 0 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	return n
}

// Logs reads a workload's placed pods of that rank, or an API task's pods
// (podLogs).
func (w *Workloads) Logs(task string, rank int) (io.ReadCloser, error) {
	k, ok := w.workload(task)
	if !ok {
		return w.Executor.Logs(task, rank)
	}
	var pods []*corev1.Pod
	for _, p := range w.podsOf(k) {
		if p.Labels[LabelRank] == strconv.Itoa(rank) {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		return nil, fmt.Errorf("kubernetes: no placed pods of %s rank %d", k, rank)
	}
	return newPodLogs(w.client, pods, w.logIndex), nil
}

// live lists the workload's pods that hold a node: bound and not finished.
func (w *Workloads) live(k wkey) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range w.podsOf(k) {
		if p.Spec.NodeName != "" && !terminal(p) {
			out = append(out, p)
		}
	}
	return out
}

func terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

func gated(p *corev1.Pod) bool {
	for _, g := range p.Spec.SchedulingGates {
		if g.Name == GateAdmission {
			return true
		}
	}
	return false
}

// take removes one occurrence of node from free.
func take(free *[]string, node string) bool {
	for i, n := range *free {
		if n == node {
			*free = append((*free)[:i], (*free)[i+1:]...)
			return true
		}
	}
	return false
}

// place lifts the gate of one pod, pins it to node (required node affinity
// on metadata.name, which a gated pod may gain) with the task's labels, and
// binds it there, as kube-scheduler would, so that the pod lands on exactly
// the node the core chose. placed is false when the pod will not hold the
// node (bindRefused says why): the node stays free for its replacement.
func (w *Workloads) place(ctx context.Context, p *corev1.Pod, node, task string, run, rank int) (placed bool, err error) {
	cp := p.DeepCopy()
	gates := cp.Spec.SchedulingGates[:0]
	for _, g := range cp.Spec.SchedulingGates {
		if g.Name != GateAdmission {
			gates = append(gates, g)
		}
	}
	cp.Spec.SchedulingGates = gates
	if cp.Labels == nil {
		cp.Labels = map[string]string{}
	}
	cp.Labels[LabelTask], cp.Labels[LabelRun], cp.Labels[LabelRank] = task, strconv.Itoa(run), strconv.Itoa(rank)
	pin := corev1.NodeSelectorRequirement{Key: pinField, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}
	if cp.Spec.Affinity == nil {
		cp.Spec.Affinity = &corev1.Affinity{}
	}
	if cp.Spec.Affinity.NodeAffinity == nil {
		cp.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	na := cp.Spec.Affinity.NodeAffinity
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{}}}
	}
	terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for i := range terms {
		terms[i].MatchFields = append(terms[i].MatchFields, pin)
	}
	if _, err := w.client.CoreV1().Pods(p.Namespace).Update(ctx, cp, metav1.UpdateOptions{}); err != nil {
		return false, fmt.Errorf("placing pod %s/%s on %s: %w", p.Namespace, p.Name, node, err)
	}
	if gated(cp) || len(cp.Spec.SchedulingGates) > 0 {
		return true, nil // another owner's gate: kube-scheduler binds it, pinned, once that gate is lifted
	}
	return w.bind(ctx, p, node, task)
}
