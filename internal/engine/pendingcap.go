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
	return pendingCap(team, e.view.Load().Pending(team)+w.queued[team], e.sched.Policy())
}

// AtPendingCap is the refusal a submission to team would get for the
// pending cap in this View, or nil. It writes nothing (no audit entry): a
// caller that would otherwise retry a refused submission again and again
// (the Kubernetes workload controller) asks it first; the submission's op
// still decides.
func (v *View) AtPendingCap(team string) error {
	return pendingCap(team, v.Pending(team), v.Policy())
}

func pendingCap(team string, pending int, p model.Policy) error {
	if limit := p.PendingCap(); pending >= limit {
		return &model.PendingCapError{Team: team, Pending: pending, Cap: limit}
	}
	return nil
}

// submitted counts an accepted submission of team in the batch.
func (w *writes) submitted(team string) {
	if w.queued == nil {
		w.queued = map[string]int{}
	}
	w.queued[team]++
}
