package engine

import (
	"context"
	"reflect"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestFairSharePreemptionSurvivesAFailedCommit: the policy's
// fairSharePreemption list, once stored, is what the engine holds after a
// later policy change fails to commit (the rollback rebuilds the core from
// the store), and after a restart on the same store; the failed change is
// in neither. A list not allowed is refused before anything is written.
func TestFairSharePreemptionSurvivesAFailedCommit(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	p := h.e.View().Policy()
	p.FairSharePreemption = []model.FairShareStrategy{model.LessThanOrEqualToFinalShare, model.LessThanInitialShare}
	if err := h.e.SetPolicy(ctx, "admin", p); err != nil {
		t.Fatal(err)
	}
	want := h.e.View().Policy()
	if !reflect.DeepEqual(want.FairSharePreemption, p.FairSharePreemption) {
		t.Fatalf("the engine dropped the list: %+v", want)
	}
	bad := want
	bad.FairSharePreemption = []model.FairShareStrategy{model.LessThanInitialShare, model.LessThanOrEqualToFinalShare}
	if err := h.e.SetPolicy(ctx, "admin", bad); err == nil {
		t.Fatal("a list in the wrong order was accepted")
	}
	h.st.failNext(errDiskFull)
	if err := h.e.SetPolicy(ctx, "admin", model.Policy{}); err == nil {
		t.Fatal("a failed commit changed the policy")
	}
	h.waitReady()
	if got := h.e.View().Policy(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a failed commit:\n got %+v\nwant %+v", got, want)
	}
	_ = h.e.Shutdown(ctx)
	e, err := Open(ctx, Options{Store: h.st, Executor: newFakeExec(), Log: h.e.log})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Shutdown(ctx)
	if got := e.View().Policy(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a restart on the store:\n got %+v\nwant %+v", got, want)
	}
}
