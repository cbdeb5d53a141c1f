package engine

import (
	"context"
	"reflect"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestTeamKnobsSurviveAFailedCommit: a team's lending limit,
// borrowWithinGroup and reclaimWithinGroup, once stored, are what the
// engine holds after a later change to the team fails to commit (the
// rollback rebuilds the core from the store), and after a restart on the
// same store; the failed change is in neither.
func TestTeamKnobsSurviveAFailedCommit(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	two, eight, fifty := int64(2), int64(8), 50
	knobs := model.Team{Name: "a", ReclaimWithinGroup: model.ReclaimLowerPriority,
		BorrowWithinGroup: &model.BorrowWithinGroup{Policy: model.BorrowWithinGroupLowerPriority, MaxPriorityWeight: &fifty},
		Quotas:            []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: &two, LendingLimit: &model.Amount{GPUs: &eight}}}}
	if err := h.e.SetTeam(ctx, "admin", knobs); err != nil {
		t.Fatal(err)
	}
	teamA := func() model.Team {
		for _, tm := range h.e.View().Teams() {
			if tm.Name == "a" {
				return tm
			}
		}
		t.Fatal("team a is gone")
		return model.Team{}
	}
	want := teamA()
	if want.BorrowWithinGroup == nil || want.ReclaimWithinGroup != model.ReclaimLowerPriority || want.Quotas[0].LendingLimit == nil {
		t.Fatalf("the engine dropped a knob: %+v", want)
	}
	h.st.failNext(errDiskFull)
	if err := h.e.SetTeam(ctx, "admin", model.Team{Name: "a", Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: &two}}}); err == nil {
		t.Fatal("a failed commit changed the team")
	}
	h.waitReady()
	if got := teamA(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a failed commit:\n got %+v\nwant %+v", got, want)
	}
	_ = h.e.Shutdown(ctx)
	c, _, _ := h.st.Cluster(ctx)
	e, err := Open(ctx, Options{Store: h.st, Executor: newFakeExec(), Log: h.e.log})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Shutdown(ctx)
	for _, tm := range e.View().Teams() {
		if tm.Name == "a" && !reflect.DeepEqual(tm, want) {
			t.Fatalf("after a restart on the stored cluster %+v:\n got %+v\nwant %+v", c.Teams, tm, want)
		}
	}
}
