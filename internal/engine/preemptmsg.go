package engine

import (
	"fmt"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// preemptedMessage is the task's message and event for a preemption: what
// it made room for, and what it cost, told apart. The core's LostGPUSeconds
// is the work since the last checkpoint (or the run's start) plus the
// policy's restartCostSeconds per GPU (SCHEDULING.md rule 6); a message that
// called all of it "since its last checkpoint" showed a task checkpointed 2 s
// before its preemption as losing 1,495 GPU·s, 1,440 of them the restart.
// gpus is the task's GPUs over all pods. The "for NAME, " form is what
// model.HidePreemptor redacts.
func preemptedMessage(p model.Preemption, gpus, restartCostSeconds int64) string {
	work, restart := lostParts(p, gpus, restartCostSeconds)
	cost := fmt.Sprintf("%.0f GPU·s of work since its last checkpoint lost", work)
	if restart > 0 {
		cost += fmt.Sprintf(", and %.0f GPU·s to restart (%d s per GPU)", restart, restartCostSeconds)
	}
	if p.For != "" {
		return fmt.Sprintf("preempted (%s) for %s, %s; requeued in its place", p.Reason, p.For, cost)
	}
	return fmt.Sprintf("preempted (%s), %s; requeued in its place", p.Reason, cost)
}

// lostParts splits a preemption's LostGPUSeconds into the work since the
// last checkpoint and the policy's restart cost for gpus GPUs.
func lostParts(p model.Preemption, gpus, restartCostSeconds int64) (work, restart float64) {
	restart = float64(gpus * restartCostSeconds)
	return max(0, p.LostGPUSeconds-restart), restart
}

// preemptionRecord is what the list of recent preemptions keeps of p; the
// preemptor's team is that of the task named For, if it is known.
func (e *Engine) preemptionRecord(p model.Preemption, team string, at time.Time, gpus int64) model.PreemptionRecord {
	work, restart := lostParts(p, gpus, restartCost(e.sched.Policy()))
	rec := model.PreemptionRecord{At: at, Task: p.Task, Team: team, Reason: p.Reason, Preemptor: p.For, GPUs: gpus,
		WorkGPUSeconds: work, RestartGPUSeconds: restart}
	if by := e.records[p.For]; p.For != "" && by != nil {
		rec.PreemptorTeam = by.Team
	}
	return rec
}

// taskGPUs is a task's GPUs over all its pods, as the core counts them.
func taskGPUs(spec model.TaskSpec, cat model.Catalog) int64 {
	it, ok := cat[spec.InstanceType]
	if !ok {
		return 0
	}
	return model.PodVector(spec.PerNode, it).GPUs * int64(max(spec.Nodes, 1))
}

// restartCost is the policy's restartCostSeconds, its default when unset.
func restartCost(p model.Policy) int64 {
	if p.RestartCostSeconds == nil {
		return model.DefaultRestartCostSeconds
	}
	return *p.RestartCostSeconds
}
