package model

import (
	"regexp"
	"strings"
)

// What a team member may see of other teams' work: another team's task must
// look as if it did not exist, so its name is replaced wherever a view of
// one's own task would carry it. These rules are shared by every view a
// member reads (the HTTP API, the Kubernetes status annotation); admins and
// cluster-wide viewers see every name, and what is stored never changes.

// OtherTeamsTask stands for a task the reader may not see.
const OtherTeamsTask = "another team's task"

// preemptedFor matches the engine's preemption message and captures the
// task it made room for.
var preemptedFor = regexp.MustCompile(`^(preempted \([A-Za-z]+\) for )([a-z0-9][a-z0-9-]*)(, )`)

// HidePreemptor returns msg with the task a preemption message names
// replaced by OtherTeamsTask, unless visible(name) says the reader may see it.
func HidePreemptor(msg string, visible func(task string) bool) string {
	m := preemptedFor.FindStringSubmatchIndex(msg)
	if m == nil || visible(msg[m[4]:m[5]]) {
		return msg
	}
	return msg[:m[4]] + OtherTeamsTask + msg[m[5]:]
}

// Hide clears, in place, what r names that the reader may not see: the team
// whose tasks it waits to preempt (rendered as "another team") and the task
// that holds the nodes it waits for (rendered as another team's task). It
// reports whether anything was cleared.
func (r *WaitReason) Hide(canRead func(team string) bool, visible func(task string) bool) (changed bool) {
	if r == nil {
		return false
	}
	if r.Team != "" && !canRead(r.Team) {
		r.Team = ""
		changed = true
	}
	if (r.Code == HeldForOther || r.Code == QueuedForHold || r.Code == BehindHead) && r.Detail != "" && !visible(r.Detail) {
		r.Detail = ""
		changed = true
	}
	if r.Code == VictimProtected && r.Detail != "" {
		// Its victims are of its own team; should the reader not see one,
		// none is named.
		for _, name := range strings.Split(r.Detail, ", ") {
			if !visible(name) {
				r.Detail = ""
				changed = true
				break
			}
		}
	}
	return changed
}
