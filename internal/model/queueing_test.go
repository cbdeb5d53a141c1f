package model

import (
	"reflect"
	"strings"
	"testing"
)

// TestQueueingStrategyValues: unset, BestEffortFIFO and StrictFIFO pass,
// an unknown value is refused with its field and the values to use, only
// StrictFIFO is strict, and the default stays unset (a team that names
// BestEffortFIFO is the team that does not).
func TestQueueingStrategyValues(t *testing.T) {
	cat := NewCatalog(nil)
	for _, q := range []QueueingStrategy{"", BestEffortFIFO, StrictFIFO} {
		if errs := ValidateTeam("team", Team{Name: "a", QueueingStrategy: q}, cat); len(errs) > 0 {
			t.Errorf("%q refused: %v", q, errs)
		}
	}
	errs := ValidateTeam("team", Team{Name: "a", QueueingStrategy: "strictFIFO"}, cat)
	want := `team.queueingStrategy: unknown value "strictFIFO"; use BestEffortFIFO or StrictFIFO`
	if errs == nil || !strings.Contains(errs.Error(), want) {
		t.Fatalf("got %v, want %q", errs, want)
	}
	for q, want := range map[QueueingStrategy]bool{"": false, BestEffortFIFO: false, StrictFIFO: true} {
		if q.Strict() != want {
			t.Errorf("%q.Strict() = %v", q, !want)
		}
	}
	if got, unset := (Team{Name: "a", QueueingStrategy: BestEffortFIFO}).WithDefaults(), (Team{Name: "a"}).WithDefaults(); !reflect.DeepEqual(got, unset) {
		t.Errorf("BestEffortFIFO named: %+v, unset: %+v", got, unset)
	}
	if got := (Team{Name: "a", QueueingStrategy: StrictFIFO}).WithDefaults().QueueingStrategy; got != StrictFIFO {
		t.Errorf("StrictFIFO after defaults: %q", got)
	}
}

// TestBehindHeadReason: the sentence names the task ahead, a reader who
// may not see that task gets it unnamed, and the start estimate says what
// the start waits for.
func TestBehindHeadReason(t *testing.T) {
	r := WaitReason{Code: BehindHead, InstanceType: "ml.p5.48xlarge", Detail: "big"}
	want := "waiting: its team queues StrictFIFO, and big, ahead of it, cannot start yet; no later ml.p5.48xlarge task of the team starts before it"
	if got := r.Message(); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	mine := func(s string) bool { return s == "mine" }
	if !r.Hide(mine, mine) || r.Detail != "" || !strings.Contains(r.Message(), "and a task ahead of it cannot start yet") {
		t.Errorf("hidden: %+v: %s", r, r.Message())
	}
	if e := EstimateStart(r); !e.NotBefore.IsZero() || !strings.Contains(e.Basis, "StrictFIFO") {
		t.Errorf("estimate %+v", e)
	}
}
