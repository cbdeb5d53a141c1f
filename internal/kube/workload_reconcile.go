package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
)

// statusEvery bounds how often a pending workload's status annotation is
// rewritten only because its queue position moved.
const statusEvery = 10 * time.Second

// reconcile brings one governed object in line with its task: submit it
// when new (or show why it cannot be), hold it while it is not running,
// place its pods while it runs, report its end, and write the status
// annotation. It is called for every change of the object or its pods.
func (w *Workloads) reconcile(ctx context.Context, k wkey) error {
	u := w.object(k)
	if u == nil {
		return w.gone(ctx, k)
	}
	team, gov := w.Mapping.Team(u)
	if !gov {
		return nil
	}
	if wrote, err := w.label(ctx, k, u, team); wrote || err != nil {
		return err // its next change continues
	}
	task := TaskName(u)
	w.mu.Lock()
	w.byTask[task], w.uids[task] = k, u.GetUID()
	r := w.runs[task]
	w.mu.Unlock()
	st, found, err := w.gov.Status(ctx, task)
	if err != nil {
		return err
	}
	if found {
		if err := w.reprioritize(ctx, u, task, st); err != nil {
			return err
		}
	}
	done, failed, why := k.kind.Finished(u)
	if !found {
		if done {
			return nil // it ended before taskgov saw it
		}
		if wrote, err := w.labelTemplates(ctx, k, u); wrote || err != nil {
			return err // held and labelled first: its next change continues
		}
		// A refused object is tried again when its labels or spec change,
		// or a minute later (a team may have been added), not on every
		// resync: each try is an audit-log entry.
		fp := fmt.Sprint(u.GetGeneration(), u.GetLabels())
		w.mu.Lock()
		last, tried := w.retry[u.GetUID()]
		w.mu.Unlock()
		if tried && last.fp == fp && time.Since(last.at) < time.Minute {
			w.queue.AddAfter(k, time.Minute-time.Since(last.at))
			return nil
		}
		spec, err := w.Mapping.TaskSpec(k.kind, u)
		if err == nil {
			if err = w.gov.AtPendingCap(spec.Team); err == nil {
				err = w.gov.Submit(ctx, spec, WorkloadKey(u))
			}
		}
		var capped *model.PendingCapError
		if errors.As(err, &capped) {
			return w.overPendingCap(ctx, k, u, capped)
		}
		w.mu.Lock()
		if err != nil && isInvalid(err) {
			w.retry[u.GetUID()] = refused{fp, time.Now()}
		} else {
			delete(w.retry, u.GetUID())
		}
		w.mu.Unlock()
		if err != nil && !isInvalid(err) {
			return err
		}
		if err != nil {
			msg := ManifestError(err).Error()
			w.mu.Lock()
			seen := w.rejected[u.GetUID()] == msg
			w.rejected[u.GetUID()] = msg
			w.mu.Unlock()
			if !seen {
				w.event(ctx, u, corev1.EventTypeWarning, "Rejected", msg)
			}
			if err := w.hold(ctx, k, u, model.DefaultGracePeriodSeconds); err != nil {
				return err
			}
			return w.setStatus(ctx, k, u, "Rejected: "+strings.ReplaceAll(msg, "\n", "; "), true)
		}
		st = TaskStatus{State: "Pending"}
		w.seeClass(u)
	}
	var stopping bool // r's stop state, read under w.mu (Stop writes it)
	var grace int64
	if r != nil {
		w.mu.Lock()
		if !r.stopping && st.State != "Running" {
			r.stopping, r.grace = true, model.DefaultGracePeriodSeconds // taskgov no longer runs it
		}
		stopping, grace = r.stopping, r.grace
		w.mu.Unlock()
	}
	switch {
	case r == nil:
		// Running without a run here: the engine's Start is on its way
		// (it records the decision first); holding now would undo it.
		if !done && st.State != "Running" {
			if err := w.hold(ctx, k, u, model.DefaultGracePeriodSeconds); err != nil {
				return err
			}
		}
	case stopping:
		if err := w.hold(ctx, k, u, grace); err != nil {
			return err
		}
		if len(w.live(k)) == 0 {
			w.end(task, r, -1)
		}
	case done:
		code := 0
		if failed {
			code = 1
			w.event(ctx, u, corev1.EventTypeWarning, "Failed", k.kind.Name+" failed: "+why)
		}
		w.end(task, r, code)
	default:
		if k.kind.Suspended(u) { // suspended by a hold that raced Start
			if err := w.patch(ctx, k, k.kind.SuspendPatch(false)); err != nil {
				return err
			}
		}
		if err := w.assign(ctx, k, task, r); err != nil {
			return err
		}
		if k.kind.Name != "Job" && w.succeeded(k, r) {
			w.end(task, r, 0)
		}
	}
	if st.State == "Pending" && st.Code == string(model.NoMatchingNodes) {
		// It cannot start until nodes are labelled: say so where
		// kubectl describe and kubectl get events show it, once.
		w.mu.Lock()
		seen := w.warned[u.GetUID()] == st.Why
		w.warned[u.GetUID()] = st.Why
		w.mu.Unlock()
		if !seen {
			w.event(ctx, u, corev1.EventTypeWarning, "NoMatchingNodes", st.Why)
		}
	}
	text := statusText(st)
	if failed && st.State == "Failed" && why != "" {
		text = "Failed: " + k.kind.Name + " failed: " + why // the workload's own reason
	}
	if err := w.setStatus(ctx, k, u, text, st.State != "Pending"); err != nil {
		return err
	}
	if ended(st.State) {
		w.mu.Lock()
		if w.runs[task] == nil {
			w.forgetObject(u.GetUID())
		}
		w.mu.Unlock()
	}
	return nil
}

// gone handles a deleted object: its task is deleted, as the API's DELETE
// deletes it (a live one is cancelled; lists leave it out, its history
// stays), and once no placed pod of it is left (the garbage collector, or
// taskgov for orphans, removes them) its run ends.
func (w *Workloads) gone(ctx context.Context, k wkey) error {
	w.mu.Lock()
	task := ""
	for t, key := range w.byTask {
		if key == k {
			task = t
		}
	}
	r := w.runs[task]
	w.mu.Unlock()
	if task == "" {
		return nil
	}
	if err := w.gov.Delete(ctx, task); err != nil && !errors.Is(err, model.ErrNotFound) {
		return err
	}
	live := w.live(k)
	if r == nil {
		if len(live) == 0 {
			w.mu.Lock()
			w.forgetTask(task)
			w.mu.Unlock()
		}
		return nil
	}
	w.mu.Lock()
	stopping, grace := r.stopping, r.grace // Stop writes them
	w.mu.Unlock()
	for _, p := range live {
		if p.DeletionTimestamp == nil && metav1.GetControllerOf(p) == nil {
			secs := w.deleteGrace(p.Spec.NodeName, grace)
			_ = w.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &secs})
		}
	}
	if len(live) == 0 && stopping {
		w.end(task, r, -1)
		w.mu.Lock()
		if w.runs[task] == nil && w.byTask[task] == k {
			w.forgetTask(task)
		}
		w.mu.Unlock()
	}
	return nil
}

// hold keeps a workload from running: a suspendable kind is suspended
// (its controller deletes its pods); otherwise placed pods are deleted
// with grace, and their replacements wait at the scheduling gate.
func (w *Workloads) hold(ctx context.Context, k wkey, u *unstructured.Unstructured, grace int64) error {
	if k.kind.SuspendPath != nil {
		if !k.kind.Suspended(u) {
			return w.patch(ctx, k, k.kind.SuspendPatch(true))
		}
		return nil
	}
	for _, p := range w.live(k) {
		if p.DeletionTimestamp != nil {
			continue
		}
		secs := w.deleteGrace(p.Spec.NodeName, grace)
		if err := w.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &secs}); err != nil {
			return fmt.Errorf("deleting pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return nil
}

// assign places each gated pod of a running workload on a node of its run
// not yet taken by another of its pods.
func (w *Workloads) assign(ctx context.Context, k wkey, task string, r *wrun) error {
	pods := w.podsOf(k)
	w.mu.Lock()
	free := append([]string(nil), r.nodes...)
	for _, p := range pods {
		node := p.Spec.NodeName
		if node == "" {
			node = r.assigned[p.UID]
		}
		if node == "" && unbound(p, task, r.run) {
			node = pinnedNode(p)
		}
		if node != "" && !terminal(p) {
			take(&free, node)
		}
	}
	w.mu.Unlock()
	for _, p := range pods {
		w.mu.Lock()
		placed := r.assigned[p.UID] != ""
		w.mu.Unlock()
		if !placed && unbound(p, task, r.run) {
			// Placed, but its bind failed: bind it again.
			ok, err := w.bind(ctx, p, pinnedNode(p), task)
			if err != nil {
				return err
			}
			if ok {
				w.mu.Lock()
				r.assigned[p.UID] = pinnedNode(p)
				w.mu.Unlock()
			}
			continue
		}
		if placed || p.Spec.NodeName != "" || p.DeletionTimestamp != nil || !gated(p) || len(free) == 0 {
			continue
		}
		node := free[0]
		free = free[1:]
		rank := 0
		for i, n := range r.nodes {
			if n == node {
				rank = i
				break
			}
		}
		placed, err := w.place(ctx, p, node, task, r.run, rank)
		if err != nil {
			return err
		}
		if !placed {
			free = append(free, node) // for the pod's replacement
			continue
		}
		w.mu.Lock()
		r.assigned[p.UID] = node
		w.mu.Unlock()
	}
	return nil
}

// succeeded reports whether every rank of the run has a pod that
// succeeded (for kinds whose controller may not run here to say so).
func (w *Workloads) succeeded(k wkey, r *wrun) bool {
	n := 0
	for _, p := range w.podsOf(k) {
		if p.Status.Phase == corev1.PodSucceeded && p.Labels[LabelRun] == fmt.Sprint(r.run) {
			n++
		}
	}
	return n >= len(r.nodes)
}

// end reports the run's end to the engine: one exit per rank.
func (w *Workloads) end(task string, r *wrun, code int) {
	w.mu.Lock()
	if w.runs[task] != r {
		w.mu.Unlock()
		return // already reported
	}
	delete(w.runs, task)
	w.mu.Unlock()
	now := time.Now()
	for rank := range r.nodes {
		w.events <- executor.Event{Task: task, Rank: rank, Run: r.run, At: now, Exited: true, ExitCode: code}
	}
}

// refused is when a refused object was last tried, and its fingerprint.
type refused struct {
	fp string
	at time.Time
}

// statusText is the status annotation: state, queue position and why.
func statusText(st TaskStatus) string {
	switch {
	case st.Deleted:
		was := st.State
		if msg, _, _ := strings.Cut(st.Message, "deleted: "); strings.TrimSuffix(msg, "; ") != "" {
			was += ", " + strings.TrimSuffix(msg, "; ")
		}
		return "Deleted: its task was deleted through taskgov's API (" + was + "); taskgov did not create this object and keeps it held: kubectl delete it, or delete and create it again to queue a new task"
	case st.State == "Pending" && st.Why != "":
		return fmt.Sprintf("Pending: position %d in its team's queue; %s", st.Position, st.Why)
	case st.Message != "":
		return st.State + ": " + st.Message
	}
	return st.State
}

// setStatus writes the status annotation when it changed; a change of
// queue position alone (not urgent) waits statusEvery since the last write.
func (w *Workloads) setStatus(ctx context.Context, k wkey, u *unstructured.Unstructured, text string, urgent bool) error {
	old := u.GetAnnotations()[AnnStatus]
	if old == text {
		return nil
	}
	if !urgent && strings.HasPrefix(old, "Pending: ") {
		w.mu.Lock()
		last := w.statusAt[u.GetUID()]
		w.mu.Unlock()
		if wait := statusEvery - time.Since(last); wait > 0 {
			w.queue.AddAfter(k, wait)
			return nil
		}
	}
	w.mu.Lock()
	if strings.HasPrefix(text, "Pending: ") { // only a pending one's writes are spaced
		w.statusAt[u.GetUID()] = time.Now()
	} else {
		delete(w.statusAt, u.GetUID())
	}
	w.mu.Unlock()
	body := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q,%q:%q}}}`, AnnStatus, text, AnnTask, TaskName(u))
	return w.patch(ctx, k, []byte(body))
}
