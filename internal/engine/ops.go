package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// Submit validates and queues a task; it returns once the task is durable.
func (e *Engine) Submit(ctx context.Context, actor string, spec model.TaskSpec) (model.TaskRecord, error) {
	r, _, err := e.SubmitOnce(ctx, actor, spec, "")
	return r, err
}

// SubmitOnce is Submit with an idempotency key: if a task of the spec's
// name, of the same team, was made by a submission with key, it returns
// that task's record, live, finished or deleted, and replayed true, so
// that a client that lost the answer and retries makes no second task;
// a retry whose spec differs from that submission's is refused
// (model.ErrKeyReused). A key no task of the name holds, or none, gets the
// name rules as ever (409 while the name's task is live), and the pending
// cap (checkPendingCap).
func (e *Engine) SubmitOnce(ctx context.Context, actor string, spec model.TaskSpec, key string) (model.TaskRecord, bool, error) {
	return e.SubmitChecked(ctx, actor, spec, key, nil)
}

// SubmitChecked is SubmitOnce that also asks check (the executor's say on
// whether it can run spec, executor.RunChecker), in the op, after the
// replay: a retry of a stored submission gets its task even when check
// would now refuse it (the server's images changed since). check must be
// cheap and must not block: it runs on the loop. nil checks nothing.
func (e *Engine) SubmitChecked(ctx context.Context, actor string, spec model.TaskSpec, key string, check func(model.TaskSpec) error) (model.TaskRecord, bool, error) {
	spec.SubmitTime = time.Time{} // the server's clock orders the queue
	digest := ""
	if key != "" {
		digest = model.SubmissionDigest(spec)
	}
	replayed := false
	v, err := e.do(ctx, auditTeam(actor, "task.submit", spec.Team, spec.Name), func(w *writes) (any, error) {
		prior, err := e.keyedTask(spec, key, w)
		if err != nil {
			return nil, err
		}
		if prior != nil {
			if err := model.CheckKeyReuse(*prior, digest); err != nil {
				return nil, err
			}
			replayed = true
			return *prior, nil
		}
		if check != nil {
			if err := check(spec); err != nil {
				return nil, err
			}
		}
		if err := e.checkPendingCap(spec.Team, w); err != nil {
			return nil, err
		}
		if e.records[spec.Name] == nil && model.ValidName(spec.Name) {
			// The store's rule for names (the core knows only live tasks).
			ctx, cancel := readCtx()
			prior, err := e.store.PriorUse(ctx, spec.Name)
			cancel()
			if err != nil {
				return nil, fmt.Errorf("reading earlier tasks named %q: %w: %w", spec.Name, ErrUnavailable, err)
			}
			if err := model.CheckNameReuse(spec.Name, spec.Team, prior); err != nil {
				return nil, err
			}
		}
		if err := e.sched.Submit(spec, e.now()); err != nil {
			return nil, err
		}
		w.submitted(spec.Team)
		info, _ := e.sched.Task(spec.Name)
		e.seq++
		r := &model.TaskRecord{Name: spec.Name, Team: spec.Team, Seq: e.seq, Spec: info.Spec, State: model.StatePending,
			SubmittedAt: info.Spec.SubmitTime, IdempotencyKey: key, IdempotencyDigest: digest}
		e.records[r.Name] = r // shared with the write and the next View: never changed in place (see edit)
		w.put(model.Write{InsertTask: r})
		e.event(r, "Submitted", "queued", w)
		return *r, nil
	})
	if err != nil {
		return model.TaskRecord{}, false, err
	}
	return v.(model.TaskRecord), replayed, nil
}

// Task actions accepted by TaskAction.
const (
	ActCancel     = "cancel"
	ActSuspend    = "suspend"
	ActResume     = "resume"
	ActPriority   = "priority"
	ActCheckpoint = "checkpoint"
)

// TaskAction changes a live task: cancel, suspend, resume, priority (arg is
// the class) or checkpoint (the task reports one now).
func (e *Engine) TaskAction(ctx context.Context, actor, name, action, arg string) (model.TaskRecord, error) {
	team := ""
	if r, ok := e.View().Record(name); ok {
		team = r.Team
	}
	v, err := e.do(ctx, auditTeam(actor, "task."+action, team, name), func(w *writes) (any, error) {
		r := e.records[name]
		if r == nil {
			return nil, fmt.Errorf("task %q is not live (finished or never submitted): %w", name, model.ErrNotFound)
		}
		now := e.now()
		// An accepted action changes a copy of r (edit): the View shares r.
		switch action {
		case ActCancel:
			var err error
			if r, err = e.cancel(name, actor, now, w); err != nil {
				return nil, err
			}
		case ActSuspend:
			if err := e.sched.Suspend(name, now); err != nil {
				return nil, err
			}
			r = e.edit(name)
			if r.State != model.StateRunning { // a running one is recorded by the decision
				r.State, r.Message = model.StateSuspended, "suspended by "+actor
			}
		case ActResume:
			if err := e.sched.Resume(name, now); err != nil {
				return nil, err
			}
			r = e.edit(name)
			r.State, r.Message = model.StatePending, "resumed by "+actor
		case ActPriority:
			if err := e.sched.SetPriority(name, arg); err != nil {
				return nil, err
			}
			r = e.edit(name)
			r.Spec.Priority = arg
		case ActCheckpoint:
			if err := e.sched.Checkpoint(name, now); err != nil {
				return nil, err
			}
			r = e.edit(name)
			r.CheckpointAt = now
		default:
			return nil, &model.FieldError{Field: "action", Problem: fmt.Sprintf("unknown action %q", action),
				Fix: "use cancel, suspend, resume, priority or checkpoint"}
		}
		e.persist(r, w)
		e.event(r, action, fmt.Sprintf("%s by %s", action, actor), w)
		return *r, nil
	})
	if err != nil {
		return model.TaskRecord{}, err
	}
	return v.(model.TaskRecord), nil
}

// SetTeam creates or updates a team, live.
func (e *Engine) SetTeam(ctx context.Context, actor string, t model.Team) error {
	_, err := e.do(ctx, auditTeam(actor, "team.set", t.Name, t.Name), func(w *writes) (any, error) {
		if err := e.sched.SetTeam(t); err != nil {
			return nil, err
		}
		e.saveCluster(w)
		return nil, nil
	})
	return err
}

// DeleteTeam removes a team without live tasks.
func (e *Engine) DeleteTeam(ctx context.Context, actor, name string) error {
	_, err := e.do(ctx, auditTeam(actor, "team.delete", name, name), func(w *writes) (any, error) {
		if err := e.sched.DeleteTeam(name); err != nil {
			return nil, err
		}
		e.saveCluster(w)
		// The team's tokens go with it, in the same transaction: a team
		// re-created under the same name must not give them access again.
		w.put(model.Write{RevokeTeamTokens: &model.TeamTokens{Team: name, Actor: actor, At: e.now().UTC()}})
		return nil, nil
	})
	return err
}

// SetPolicy replaces the cluster policy (priority classes included), live.
func (e *Engine) SetPolicy(ctx context.Context, actor string, p model.Policy) error {
	_, err := e.do(ctx, audit(actor, "policy.set", "cluster"), func(w *writes) (any, error) {
		if err := e.sched.SetPolicy(p); err != nil {
			return nil, err
		}
		e.saveCluster(w)
		return nil, nil
	})
	return err
}

// Node actions accepted by NodeAction.
const (
	ActCordon   = "cordon"
	ActUncordon = "uncordon"
	ActDrain    = "drain"
)

// NodeAction cordons, uncordons or drains a node.
func (e *Engine) NodeAction(ctx context.Context, actor, node, action string) error {
	_, err := e.do(ctx, audit(actor, "node."+action, node), func(w *writes) (any, error) {
		var err error
		switch action {
		case ActCordon:
			err = e.sched.Cordon(node, true)
		case ActUncordon:
			err = e.sched.Cordon(node, false)
		case ActDrain:
			err = e.sched.Drain(node, e.now())
		default:
			err = &model.FieldError{Field: "action", Problem: fmt.Sprintf("unknown action %q", action), Fix: "use cordon, uncordon or drain"}
		}
		if err != nil {
			return nil, err
		}
		e.saveCluster(w)
		return nil, nil
	})
	return err
}

// Audit records a call that was refused before reaching the engine (for
// example for lack of permission).
func (e *Engine) Audit(ctx context.Context, actor, action, target, result string) {
	_, _ = e.do(ctx, nil, func(w *writes) (any, error) {
		a := model.AuditEntry{At: e.now(), Actor: actor, Action: action, Target: target, Result: result}
		w.put(model.Write{Audit: &a})
		return nil, nil
	})
}

func audit(actor, action, target string) *model.AuditEntry {
	return &model.AuditEntry{Actor: actor, Action: action, Target: target}
}

func auditTeam(actor, action, team, target string) *model.AuditEntry {
	return &model.AuditEntry{Actor: actor, Action: action, Team: team, Target: target}
}

// saveCluster persists the configuration as the core now holds it: teams,
// policy, and node cordons.
func (e *Engine) saveCluster(w *writes) {
	c := e.cluster
	c.Teams = e.sched.Teams()
	c.Policy = e.sched.Policy()
	c.NodeGroups = nil
	c.Nodes = nil
	for _, n := range e.sched.Nodes() {
		spec := n.Spec
		c.Nodes = append(c.Nodes, spec)
	}
	e.cluster = c
	w.put(model.Write{Cluster: &c})
}

// Task returns a live task from the View or a finished one from the store.
func (e *Engine) Task(ctx context.Context, name string) (apitypes.Task, error) {
	if v, ok := e.View().Task(name); ok {
		return v, nil
	}
	rec, err := e.store.Task(ctx, name)
	if errors.Is(err, model.ErrNotFound) {
		return apitypes.Task{}, fmt.Errorf("task %q: %w", name, model.ErrNotFound)
	}
	return apitypes.Task{TaskRecord: rec}, err
}

// Queue returns the pending tasks of the given teams (all if empty), team by
// team in queue order, with position and reason (View.Queue).
func (e *Engine) Queue(teams map[string]bool) []apitypes.Task { return e.View().Queue(teams) }

// QueuePage returns a page of the queue (View.QueuePage).
func (e *Engine) QueuePage(teams map[string]bool, offset, limit int) (page []apitypes.Task, total int) {
	return e.View().QueuePage(teams, offset, limit)
}

// QueueSummary counts the queue by team, instance type and reason
// (View.QueueSummary).
func (e *Engine) QueueSummary(teams map[string]bool) []apitypes.QueueGroup {
	return e.View().QueueSummary(teams)
}

// Store exposes the store (an adapter: SQLite or PostgreSQL) for the
// queries the engine does not answer from memory (lists, events, audit) and
// the token writes httpapi makes itself.
func (e *Engine) Store() Store { return e.store }

// Logs returns a pod's captured output.
func (e *Engine) Logs(task string, rank int) (io.ReadCloser, error) { return e.exec.Logs(task, rank) }

// ClusterName is the configured cluster name.
func (e *Engine) ClusterName() string { return e.View().ClusterName() }

// Preview shows what a policy or team change would do now, without doing
// it: it applies the change to a clone of the scheduler and runs one cycle.
// It is the one call that reads the live core (under mu): a clone needs the
// core's internals, which a View does not hold. It may see a step whose
// commit is in flight (ARCHITECTURE.md, "Reads").
func (e *Engine) Preview(p *model.Policy, teams []model.Team) (model.Decision, error) {
	e.mu.RLock()
	c, err := e.sched.Clone()
	e.mu.RUnlock()
	if err != nil {
		return model.Decision{}, err
	}
	if p != nil {
		if err := c.SetPolicy(*p); err != nil {
			return model.Decision{}, err
		}
	}
	for _, t := range teams {
		if err := c.SetTeam(t); err != nil {
			return model.Decision{}, err
		}
	}
	d := c.Schedule(e.now())
	d.Waiting = nil
	return d, nil
}
