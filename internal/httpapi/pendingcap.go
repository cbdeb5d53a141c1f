package httpapi

import (
	"fmt"
	"net/http"

	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/model"
)

// checkPendingCap refuses a submission to a team that already has the
// policy's maxPendingPerTeam pending tasks (429, with the cap, the count
// and how to raise it), so that one team's runaway script cannot fill the
// server's memory and disk for every team. It reads the last published
// View: submissions in flight together may pass the cap by as many as
// are in flight, never more. A retry of a submission whose task is live
// (its Idempotency-Key given again) is let through: the engine answers it
// with that task and stores nothing.
func checkPendingCap(v *engine.View, spec model.TaskSpec, key string) error {
	limit := v.Policy().PendingCap()
	n := v.Pending(spec.Team)
	if n < limit {
		return nil
	}
	if r, ok := v.Record(spec.Name); ok && key != "" && r.Team == spec.Team && r.IdempotencyKey == key {
		return nil
	}
	return &apiError{Status: http.StatusTooManyRequests, Code: "pending_cap",
		Message: fmt.Sprintf("team %s has %d pending tasks, the most the cluster's policy lets one team queue (maxPendingPerTeam %d); nothing was stored",
			spec.Team, n, limit),
		Fix: "wait for some of the team's tasks to start, or cancel some; an admin can raise the cap with `taskgov policy set --max-pending-per-team N` (PUT /api/v1/policy, maxPendingPerTeam)"}
}
