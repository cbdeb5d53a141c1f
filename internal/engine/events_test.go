package engine

import (
	"fmt"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// A subscriber gets each committed step's events as one slice, filtered to
// the teams it may see; one that stops reading loses whole steps, counted,
// and never slows the engine.
func TestSubscriptionStepsAndDrops(t *testing.T) {
	h := newHarness(t)
	h.quiesce()
	onlyB := h.e.Subscribe(func(team string) bool { return team == "b" })
	stalled := h.e.Subscribe(func(string) bool { return true })
	defer h.e.Unsubscribe(onlyB)
	defer h.e.Unsubscribe(stalled)

	// A step far larger than any per-event buffer arrives whole.
	big := make([]model.Event, 5000)
	for i := range big {
		big[i] = model.Event{Task: fmt.Sprint("t", i), Team: []string{"a", "b"}[i%2], Kind: "Submitted"}
	}
	h.e.publish(big)
	got := <-onlyB.C
	if len(got) != 2500 {
		t.Fatalf("team b's subscriber got %d events of the step, want its 2,500", len(got))
	}
	for _, ev := range got {
		if ev.Team != "b" {
			t.Fatalf("team b's subscriber got team %s's event", ev.Team)
		}
	}
	// The stalled subscriber holds subscriptionSteps steps; the rest are
	// counted as dropped, and publishing never blocks.
	for i := 0; i < subscriptionSteps+9; i++ {
		h.e.publish([]model.Event{{Task: "x", Team: "a", Kind: "Submitted"}, {Task: "y", Team: "a", Kind: "Submitted"}})
	}
	if len(stalled.C) != subscriptionSteps {
		t.Fatalf("the stalled subscriber holds %d steps, want %d", len(stalled.C), subscriptionSteps)
	}
	// It holds the big step and the first 1,023 small ones; 10 were lost.
	if d := stalled.Dropped(); d != 20 {
		t.Fatalf("dropped %d events, want 20 (10 steps of 2)", d)
	}
	if d := onlyB.Dropped(); d != 0 {
		t.Fatalf("team b's subscriber dropped %d events of steps it does not see", d)
	}
}
