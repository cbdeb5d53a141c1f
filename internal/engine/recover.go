package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
)

// recover rebuilds the core from the store. Tasks that were running when the
// previous server stopped (cleanly or not) are requeued in their place, with
// their last checkpoint, to resume; their leftover processes are killed, so
// nothing runs twice.
func (e *Engine) recover(ctx context.Context, o Options) error {
	stored, ok, err := e.store.Cluster(ctx)
	if err != nil {
		return fmt.Errorf("reading stored cluster: %w", err)
	}
	switch {
	case o.Cluster != nil:
		e.cluster = *o.Cluster
	case ok:
		e.cluster = stored
	default:
		return fmt.Errorf("no cluster configuration stored yet: start with --config CLUSTER_FILE: %w", model.ErrInvalid)
	}
	e.sched, err = core.New(e.cluster, 0)
	if err != nil {
		return err
	}
	e.sched.SetLazyWaiting(true) // built on the first read after a cycle (waitindex.go)
	live, err := e.store.LiveTasks(ctx)
	if err != nil {
		return fmt.Errorf("reading tasks: %w", err)
	}
	if e.seq, err = e.store.MaxSeq(ctx); err != nil {
		return err
	}
	if o.KillStrays != nil {
		if n := o.KillStrays(); n > 0 {
			e.log.Warn("killed processes left by a previous server", "count", n)
		}
	}
	now := e.now()
	w := &writes{}
	cl := e.cluster
	w.put(model.Write{Cluster: &cl})
	// Runs left open by a crash end at the last thing the old server recorded.
	lastSeen, err := e.store.LastEventAt(ctx)
	if err != nil {
		return err
	}
	if lastSeen.IsZero() || lastSeen.After(now) {
		lastSeen = now
	}
	adopter, _ := e.exec.(executor.Adopter)
	adopted := map[string]int{}
	for i := range live {
		r := new(model.TaskRecord) // its own allocation: one long-lived task must not keep the whole slice
		*r = live[i]
		if r.State == model.StateRunning && adopter != nil && e.adopt(adopter, r, now, w) {
			adopted[r.Name] = r.Resumes
			e.records[r.Name] = r
			continue
		}
		wasRunning := r.State == model.StateRunning || r.State == model.StateInterrupted
		resumes := r.Resumes
		if wasRunning {
			resumes++
		}
		err := e.sched.Restore(r.Spec, resumes, r.Retries, r.CheckpointAt, r.State == model.StateSuspended, now)
		if err != nil {
			// The configuration changed under it (team or class removed):
			// it cannot run again; say so rather than drop it silently.
			r.State, r.FinishedAt, r.Message = model.StateFailed, now, "could not be restored: "+err.Error()
			e.persist(r, w)
			e.event(r, "Failed", r.Message, w)
			continue
		}
		if wasRunning {
			r.State, r.Resumes, r.Placement, r.PGIDs = model.StatePending, resumes, nil, nil
			r.Message = "interrupted by a server restart; requeued in its place to resume from its last checkpoint"
			e.persist(r, w)
			e.event(r, "Interrupted", r.Message, w)
		}
		e.records[r.Name] = r
	}
	if adopter != nil {
		if n := adopter.RemoveOthers(adopted); n > 0 {
			e.log.Warn("deleted pods of runs that could not be adopted", "count", n)
		}
		if len(adopted) > 0 {
			e.log.Info("adopted runs still in progress", "count", len(adopted))
		}
	}
	keep := make(map[string]bool, len(adopted))
	for name := range adopted {
		keep[name] = true
	}
	w.put(model.Write{CloseOpenRuns: &model.RunEnd{At: lastSeen, Outcome: "interrupted: server stopped", Keep: keep}})
	return e.store.Apply(ctx, w.ws)
}

// adopt takes back a run whose pods are still where the record placed them:
// the core holds its nodes again and the engine waits for its pods' exits.
func (e *Engine) adopt(a executor.Adopter, r *model.TaskRecord, now time.Time, w *writes) bool {
	pods := make([]executor.Pod, len(r.Placement))
	nodes := make([]string, len(r.Placement))
	for i, p := range r.Placement {
		pods[i] = executor.Pod{Rank: p.Rank, Node: p.Node, GPUs: p.GPUs}
		nodes[i] = p.Node
	}
	if len(pods) == 0 || !a.Alive(r.Name, r.Resumes, pods) {
		return false
	}
	if err := e.sched.Adopt(r.Spec, r.Resumes, r.Retries, r.CheckpointAt, r.StartedAt, r.Placement, now); err != nil {
		e.log.Warn("could not adopt a run still in progress; requeueing it", "task", r.Name, "err", err)
		return false
	}
	e.runs[r.Name] = &run{resumes: r.Resumes, alive: len(pods), nodes: nodes}
	r.Message = ""
	e.event(r, "Adopted", fmt.Sprintf("run %d adopted after a server restart: its pods still run on %s", r.Resumes+1, strings.Join(nodes, ", ")), w)
	return true
}
