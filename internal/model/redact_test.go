package model

import "testing"

func TestHideOtherTeams(t *testing.T) {
	mine := func(s string) bool { return s == "mine" }
	msg := "preempted (Reclaim) for theirs, checkpoint at step 9"
	if got := HidePreemptor(msg, mine); got != "preempted (Reclaim) for another team's task, checkpoint at step 9" {
		t.Errorf("HidePreemptor: %q", got)
	}
	if got := HidePreemptor("preempted (Reclaim) for mine, x", mine); got != "preempted (Reclaim) for mine, x" {
		t.Errorf("own task hidden: %q", got)
	}
	r := WaitReason{Code: HeldForOther, Detail: "theirs", Team: "theirs"}
	if !r.Hide(mine, mine) || r.Detail != "" || r.Team != "" {
		t.Errorf("Hide left %+v", r)
	}
	r = WaitReason{Code: HeldForOther, Detail: "mine", Team: "mine"}
	if r.Hide(mine, mine) || r.Detail != "mine" || r.Team != "mine" {
		t.Errorf("Hide cleared what the reader may see: %+v", r)
	}
	r = WaitReason{Code: VictimProtected, Detail: "mine, theirs", Need: 2}
	if !r.Hide(mine, mine) || r.Detail != "" {
		t.Errorf("Hide named a protected victim the reader may not see: %+v", r)
	}
	r = WaitReason{Code: VictimProtected, Detail: "mine", Need: 1}
	if r.Hide(mine, mine) || r.Detail != "mine" {
		t.Errorf("Hide cleared a protected victim the reader may see: %+v", r)
	}
	var none *WaitReason
	if none.Hide(mine, mine) {
		t.Error("a nil reason changed")
	}
}
