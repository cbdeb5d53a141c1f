package model

import (
	"strings"
	"testing"
)

// TestPreemptTeamTasksValues: the three settings pass, an unknown one is
// refused with its field and the values to use, and only Never preempts
// nothing.
func TestPreemptTeamTasksValues(t *testing.T) {
	cat := NewCatalog(nil)
	for _, p := range []PreemptTeamTasks{"", PreemptLowerPriority, PreemptLowerOrNewerEqualPriority, PreemptNever} {
		if errs := ValidateTeam("team", Team{Name: "a", PreemptTeamTasks: p}, cat); len(errs) > 0 {
			t.Errorf("%q refused: %v", p, errs)
		}
	}
	errs := ValidateTeam("team", Team{Name: "a", PreemptTeamTasks: "LowerOrEqualPriority"}, cat)
	want := `team.preemptTeamTasks: unknown value "LowerOrEqualPriority"; use LowerPriority, LowerOrNewerEqualPriority or Never`
	if errs == nil || !strings.Contains(errs.Error(), want) {
		t.Fatalf("got %v, want %q", errs, want)
	}
	for p, want := range map[PreemptTeamTasks]bool{PreemptLowerPriority: true, PreemptLowerOrNewerEqualPriority: true, PreemptNever: false} {
		if p.Preempts() != want {
			t.Errorf("%s.Preempts() = %v", p, !want)
		}
	}
	if got := (Team{Name: "a"}).WithDefaults().PreemptTeamTasks; got != PreemptLowerPriority {
		t.Errorf("default %q, want LowerPriority", got)
	}
}
