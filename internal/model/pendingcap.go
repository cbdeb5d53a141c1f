package model

import "fmt"

// PendingCapError refuses a submission to a team that already has the
// policy's maxPendingPerTeam pending tasks. Nothing was stored; the same
// submission is taken once the team is under the cap.
type PendingCapError struct {
	Team    string
	Pending int // the team's pending tasks when it was refused
	Cap     int // Policy.PendingCap
}

func (e *PendingCapError) Error() string {
	return fmt.Sprintf("team %s has %d pending tasks, the most the cluster's policy lets one team queue (maxPendingPerTeam %d); nothing was stored",
		e.Team, e.Pending, e.Cap)
}

// PendingCapFix says what lifts the refusal.
const PendingCapFix = "wait for some of the team's tasks to start, or cancel some; an admin can raise the cap with `taskgov policy set --max-pending-per-team N` (PUT /api/v1/policy, maxPendingPerTeam)"
