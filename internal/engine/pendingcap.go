package engine

import "github.com/taskgov/taskgov/internal/model"

// checkPendingCap refuses a submission to a team that already has the
// policy's maxPendingPerTeam pending tasks (model.PendingCapError). It runs
// in the submission's op on the loop, the one place submissions are
// decided, so submissions in flight together cannot pass the cap: the
// count is the team's pending tasks after the last committed step (the
// View, which the loop alone publishes) plus the submissions this batch
// has already accepted. Tasks that leave Pending earlier in the same batch
// (a cancel) are not subtracted: the cap may refuse one submission too
// early, never let one too many in. A task requeued after preemption or a
// pod failure is not a submission and is never refused.
func (e *Engine) checkPendingCap(team string, w *writes) error {
	limit := e.sched.Policy().PendingCap()
	n := e.view.Load().Pending(team) + w.queued[team]
	if n < limit {
		return nil
	}
	return &model.PendingCapError{Team: team, Pending: n, Cap: limit}
}

// submitted counts an accepted submission of team in the batch.
func (w *writes) submitted(team string) {
	if w.queued == nil {
		w.queued = map[string]int{}
	}
	w.queued[team]++
}
