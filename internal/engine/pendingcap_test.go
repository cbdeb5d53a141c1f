package engine

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// Tasks stay pending: team a has no quota and nothing is lent.
const capCluster = `
nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]
policy: {borrowUnallocated: false, maxPendingPerTeam: 3}
teams:
  - {name: a, lending: DontLend, quotas: [{instanceType: ml.p5.48xlarge, count: 0}]}
`

// TestPendingCapIsDecidedInTheOp: submissions sent together at a team
// below maxPendingPerTeam store exactly as many as the cap has room for
// (the op counts its own batch's), the rest get PendingCapError; a
// submission whose commit failed takes no room; a retry of a stored
// submission at the cap gets its task.
func TestPendingCapIsDecidedInTheOp(t *testing.T) {
	h := newHarnessWith(t, capCluster, nil)
	ctx := context.Background()
	spec := func(name string) model.TaskSpec {
		return model.TaskSpec{Name: name, Team: "a", InstanceType: "ml.p5.48xlarge", Command: []string{"true"}}
	}
	if _, _, err := h.e.SubmitOnce(ctx, "test", spec("first"), "k-first"); err != nil {
		t.Fatal(err)
	}
	h.st.failNext(errDiskFull)
	if err := h.submit("lost", "a", 1); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a submission whose commit fails: %v", err)
	}
	h.waitReady()

	const senders = 32
	errs := make([]error, senders)
	var wg sync.WaitGroup
	for i := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = h.e.SubmitOnce(ctx, "test", spec("burst"+strconv.Itoa(i)), "")
		}()
	}
	wg.Wait()
	stored := 0
	for i, err := range errs {
		var pce *model.PendingCapError
		switch {
		case err == nil:
			stored++
		case errors.As(err, &pce) && pce.Cap == 3 && pce.Team == "a" && pce.Pending == 3:
		default:
			t.Errorf("submission %d: %v; want none or the cap's refusal at 3 pending", i, err)
		}
	}
	if stored != 2 {
		t.Errorf("%d of %d concurrent submissions stored with room for 2 (the failed one takes none)", stored, senders)
	}
	h.quiesce()
	if n := h.e.View().Pending("a"); n != 3 {
		t.Errorf("team a has %d pending, want the cap, 3", n)
	}
	if _, replayed, err := h.e.SubmitOnce(ctx, "test", spec("first"), "k-first"); err != nil || !replayed {
		t.Errorf("a retry of a stored submission at the cap: replayed %v, %v", replayed, err)
	}
}
