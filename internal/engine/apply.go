package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
)

// apply records a cycle's decision and plans its actions: victims stop
// first; admissions start once nothing stopping holds their nodes.
func (e *Engine) apply(d model.Decision, w *writes) {
	for _, p := range d.Preemptions {
		r := e.edit(p.Task)
		if r == nil {
			continue
		}
		info, _ := e.sched.Task(p.Task)
		r.State, r.Resumes, r.Placement = model.StatePending, info.Resumes, nil
		gpus := taskGPUs(r.Spec, e.sched.Catalog())
		msg := preemptedMessage(p, gpus, restartCost(e.sched.Policy()))
		if p.Reason == model.Suspended {
			r.State, msg = model.StateSuspended, "suspended; its pods are stopping"
		} else {
			rec := e.preemptionRecord(p, r.Team, d.Time, gpus)
			w.put(model.Write{Preemption: &rec})
		}
		r.Message = msg
		e.persist(r, w)
		e.event(r, "Preempted", msg, w)
		w.after = append(w.after, func() { e.obs.Preempted(string(p.Reason), p.LostGPUSeconds) })
		e.decisionAudit("preempt:"+string(p.Reason), r, msg, w)
		e.endRun(p.Task, d.Time, "preempted: "+string(p.Reason), w)
		e.stopRun(p.Task, string(p.Reason), w)
	}
	for _, a := range d.Admissions {
		r := e.edit(a.Task)
		if r == nil {
			continue
		}
		firstWait := time.Duration(-1)
		if r.Resumes == 0 && r.Retries == 0 {
			firstWait = d.Time.Sub(r.SubmittedAt)
		}
		w.after = append(w.after, func() { e.obs.Admitted(a.Team, a.Borrowed, firstWait) })
		e.startRun(r, a, d.Time, w)
		r.State, r.StartedAt, r.Placement, r.Message = model.StateRunning, d.Time, a.Pods, ""
		e.persist(r, w)
		nodes := make([]string, len(a.Pods))
		for i, p := range a.Pods {
			nodes[i] = p.Node
		}
		msg := "admitted on " + strings.Join(nodes, ", ")
		if a.Borrowed {
			msg += " (borrowed compute)"
		}
		if a.Spread > 0 {
			msg += fmt.Sprintf(", spread level %d", a.Spread)
		}
		e.event(r, "Admitted", msg, w)
		e.decisionAudit("admit", r, msg, w)
		e.deferred = append(e.deferred, a)
	}
	e.startReady(w)
}

// stopRun asks the executor to stop a task's pods with its grace period.
func (e *Engine) stopRun(task, why string, w *writes) {
	rn := e.runs[task]
	if rn == nil || rn.stopping != "" {
		return
	}
	e.undo.saveRun(e, task)
	rn.stopping = why
	grace := e.gracePeriod(e.records[task])
	w.acts = append(w.acts, act{task, func() { e.exec.Stop(task, grace) }})
}

// startReady starts deferred admissions whose nodes no stopping pod holds
// and whose own previous run has ended.
func (e *Engine) startReady(w *writes) {
	if e.closing {
		return
	}
	busy := map[string]bool{}
	for _, rn := range e.runs {
		if rn.stopping != "" {
			for _, n := range rn.nodes {
				busy[n] = true
			}
		}
	}
	keep := e.deferred[:0]
	for _, a := range e.deferred {
		r := e.records[a.Task]
		if r == nil || r.State != model.StateRunning || !samePods(r.Placement, a.Pods) {
			continue // cancelled, preempted or re-placed before it started
		}
		blocked := e.runs[a.Task] != nil
		for _, p := range a.Pods {
			blocked = blocked || busy[p.Node]
		}
		if blocked {
			keep = append(keep, a)
			continue
		}
		spec := executor.StartSpec{Task: a.Task, Team: a.Team, Command: r.Spec.Command, Args: r.Spec.Args, Env: r.Spec.Env, Image: r.Spec.Image, ImagePullPolicy: r.Spec.ImagePullPolicy, Resumes: r.Resumes,
			Seq: r.Seq, KeepCheckpoints: r.Spec.ResumeCheckpoints, Key: r.IdempotencyKey}
		rn := &run{resumes: r.Resumes, alive: len(a.Pods)}
		for _, p := range a.Pods {
			spec.Pods = append(spec.Pods, executor.Pod{Rank: p.Rank, Node: p.Node, GPUs: p.GPUs})
			rn.nodes = append(rn.nodes, p.Node)
		}
		e.undo.saveRun(e, a.Task)
		e.runs[a.Task] = rn
		w.acts = append(w.acts, act{a.Task, func() { e.start(spec) }})
	}
	e.deferred = keep
}

func samePods(a, b []model.PodPlacement) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Node != b[i].Node {
			return false
		}
	}
	return true
}

// start runs outside the lock; its outcome comes back as an internal op.
func (e *Engine) start(spec executor.StartSpec) {
	err := e.exec.Start(spec)
	handles := e.exec.Handles(spec.Task)
	e.sendInternal(&op{fn: func(w *writes) (any, error) {
		rn := e.runs[spec.Task]
		r := e.records[spec.Task]
		if err != nil {
			e.undo.saveRun(e, spec.Task)
			delete(e.runs, spec.Task)
			switch {
			case r == nil || r.State != model.StateRunning:
			case errors.Is(err, executor.ErrGone) && e.deleteGone(spec.Task, err.Error(), w):
			default:
				e.finish(spec.Task, -1, "could not start: "+err.Error(), w)
			}
			e.startReady(w)
			return nil, nil
		}
		if r != nil && rn != nil {
			r = e.edit(spec.Task)
			r.PGIDs = handles
			e.persist(r, w)
			e.event(r, "Started", fmt.Sprintf("run %d started: %d pod(s)", r.Resumes+1, len(spec.Pods)), w)
		}
		return nil, nil
	}})
}

// sendInternal queues an op for the loop from an actor; it gives up when the
// loop has stopped.
func (e *Engine) sendInternal(o *op) {
	select {
	case e.internal <- o:
	case <-e.stopped:
	}
}

// execOp turns an executor event into an input.
func (e *Engine) execOp(ev executor.Event) *op {
	return &op{fn: func(w *writes) (any, error) {
		r := e.records[ev.Task]
		if ev.Checkpoint {
			if r != nil && e.sched.Checkpoint(ev.Task, ev.At) == nil {
				r = e.edit(ev.Task)
				r.CheckpointAt = ev.At
				e.persist(r, w)
				e.event(r, "Checkpoint", "checkpoint saved", w)
			}
			return nil, nil
		}
		rn := e.runs[ev.Task]
		if rn == nil || ev.Run != rn.resumes || rn.alive <= 0 || rn.exited[ev.Rank] {
			return nil, nil // an earlier run's pod, or an exit already accounted for
		}
		e.undo.saveRun(e, ev.Task)
		if rn.exited == nil {
			rn.exited = map[int]bool{}
		}
		rn.exited[ev.Rank] = true
		rn.alive--
		if ev.ExitCode != 0 && rn.stopping == "" {
			rn.failed = true
			e.stopRun(ev.Task, fmt.Sprintf("pod %d exited with code %d", ev.Rank, ev.ExitCode), w)
			if r != nil {
				// Shown (and stored) while the other pods get their grace
				// period, not only once the last one has exited.
				r = e.edit(ev.Task)
				r.Message = fmt.Sprintf("pod %d exited with code %d", ev.Rank, ev.ExitCode)
				e.persist(r, w)
			}
		}
		if rn.alive > 0 {
			return nil, nil
		}
		delete(e.runs, ev.Task)
		switch {
		case r == nil || r.State != model.StateRunning:
			// Stopped by us (preempted, suspended, cancelled): already recorded.
		case rn.failed:
			e.finish(ev.Task, 1, r.Message, w)
		case rn.stopping == "":
			e.finish(ev.Task, 0, "", w)
		}
		e.startReady(w)
		return nil, nil
	}}
}

// finish ends a task's run: success completes it; a failure requeues it if
// it auto-resumes with retries left, else fails it for good.
func (e *Engine) finish(task string, code int, why string, w *writes) {
	r := e.edit(task)
	now := e.now()
	if code == 0 {
		e.endRun(task, now, "succeeded", w)
		_ = e.sched.Complete(task)
		r.State, r.FinishedAt, r.Message = model.StateSucceeded, now, "completed"
		e.persist(r, w)
		e.event(r, "Succeeded", "all pods exited 0", w)
		delete(e.records, task)
		return
	}
	requeued, err := e.sched.Fail(task, now)
	if err != nil {
		return
	}
	e.endRun(task, now, "failed: "+why, w)
	if requeued {
		info, _ := e.sched.Task(task)
		r.State, r.Resumes, r.Retries, r.Placement = model.StatePending, info.Resumes, info.Retries, nil
		r.Message = fmt.Sprintf("failed (%s); auto-resume retry %d of %d", why, info.Retries, r.Spec.MaxRetry)
		e.persist(r, w)
		e.event(r, "Requeued", r.Message, w)
		return
	}
	r.State, r.FinishedAt, r.Message = model.StateFailed, now, "failed: "+why
	e.persist(r, w)
	e.event(r, "Failed", r.Message, w)
	delete(e.records, task)
}

// interrupt requeues a running task (shutdown) and stops its pods.
func (e *Engine) interrupt(task, why string, w *writes) {
	if e.records[task] == nil || e.sched.Interrupt(task, e.now()) != nil {
		return
	}
	r := e.edit(task)
	info, _ := e.sched.Task(task)
	r.State, r.Resumes, r.Placement, r.Message = model.StatePending, info.Resumes, nil, why
	e.endRun(task, e.now(), "interrupted: server shutdown", w)
	e.persist(r, w)
	e.event(r, "Interrupted", why, w)
	e.stopRun(task, "shutdown", w)
}

func (e *Engine) runningNames() []string {
	var out []string
	for name, r := range e.records {
		if r.State == model.StateRunning {
			out = append(out, name)
		}
	}
	return out
}

// persist queues a write of a record's current state. The copy written
// takes the record's place in e.records when r is there: the View this step
// publishes holds that copy, so the engine and the View share it (see edit).
func (e *Engine) persist(r *model.TaskRecord, w *writes) {
	cp := *r
	w.put(model.Write{UpdateTask: &cp})
	if e.records[r.Name] == r {
		e.records[r.Name] = &cp
	}
}

// edit returns a live task's record for the caller to change (nil if the
// task is not live): a copy of the one in e.records, put in its place. A
// record in e.records may be shared with published Views, which never
// change (view.go), so the loop changes a record only through edit, never
// in place; persist then shares the stored copy again. Sharing keeps one
// record per live task instead of two (about 450 bytes each).
func (e *Engine) edit(name string) *model.TaskRecord {
	r := e.records[name]
	if r == nil {
		return nil
	}
	cp := *r
	e.records[name] = &cp
	return &cp
}

// event queues an event for storage and for live subscribers.
func (e *Engine) event(r *model.TaskRecord, kind, msg string, w *writes) {
	ev := model.Event{Task: r.Name, TaskSeq: r.Seq, Team: r.Team, At: e.now(), Kind: kind, Message: msg}
	w.put(model.Write{Event: &ev})
	w.events = append(w.events, ev)
}

// gracePeriod is the task's own grace period, else its priority class's,
// else the default.
func (e *Engine) gracePeriod(r *model.TaskRecord) time.Duration {
	secs := model.DefaultGracePeriodSeconds
	if r != nil {
		for _, c := range e.sched.Policy().PriorityClasses {
			if c.Name == r.Spec.Priority && c.GracePeriodSeconds > 0 {
				secs = c.GracePeriodSeconds
			}
		}
		if r.Spec.GracePeriodSeconds > 0 {
			secs = r.Spec.GracePeriodSeconds
		}
	}
	return time.Duration(secs) * time.Second
}

// startRun opens a usage-report run for an admission.
func (e *Engine) startRun(r *model.TaskRecord, a model.Admission, at time.Time, w *writes) {
	it := e.sched.Catalog()[a.InstanceType]
	pod := model.PodVector(r.Spec.PerNode, it)
	n := int64(len(a.Pods))
	run := model.Run{Task: r.Name, Team: r.Team, InstanceType: a.InstanceType, Priority: r.Spec.Priority, GPUs: pod.GPUs * n,
		VCPU: float64(pod.MilliCPU) / 1000 * float64(n), BorrowedGPUs: a.BorrowedGPUs, StartedAt: at}
	w.put(model.Write{StartRun: &run})
}

// endRun closes a task's open usage-report run.
func (e *Engine) endRun(task string, at time.Time, outcome string, w *writes) {
	w.put(model.Write{EndRun: &model.RunEnd{Task: task, At: at, Outcome: outcome}})
}

// decisionAudit records a scheduling decision in the audit log (actor
// "scheduler"), so that it is searchable beside the calls that caused it.
func (e *Engine) decisionAudit(action string, r *model.TaskRecord, msg string, w *writes) {
	a := model.AuditEntry{At: e.now(), Actor: "scheduler", Action: action, Team: r.Team, Target: r.Name, Result: msg}
	w.put(model.Write{Audit: &a})
}
