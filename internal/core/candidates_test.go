package core

import (
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestCandidatesDoNotAllocate: listing a search's candidates reuses the
// cycle's scratch and allocates nothing (a closure made per call was about
// 1% of the deep-backlog replay's CPU), and still lists the borrower's
// tasks for a within-quota search and none of them for a task of the
// borrower itself.
func TestCandidatesDoNotAllocate(t *testing.T) {
	s, err := New(ownerAndBorrower(), 1)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1767225600, 0)
	for _, n := range []string{"v1", "v2"} {
		if err := s.Submit(model.TaskSpec{Name: n, Team: "v", InstanceType: "ml.p5.48xlarge"}, t0); err != nil {
			t.Fatal(err)
		}
	}
	s.Schedule(t0)
	t1 := t0.Add(time.Hour)
	for _, n := range []string{"o1", "v3"} {
		team := n[:1]
		if err := s.Submit(model.TaskSpec{Name: n, Team: team, InstanceType: "ml.p5.48xlarge"}, t1); err != nil {
			t.Fatal(err)
		}
	}
	s.Schedule(t1)
	o1, v3 := s.tasks["o1"], s.tasks["v3"]
	if got := len(s.candidates(o1, modeGuaranteed)); got != 2 {
		t.Fatalf("o1's within-quota search lists %d candidates, want v's 2 borrowed tasks", got)
	}
	if got := len(s.candidates(v3, modeGuaranteed)); got != 0 {
		t.Fatalf("v3's search lists %d candidates, want none (its own team's, without rank preemption)", got)
	}
	if a := testing.AllocsPerRun(100, func() { s.candidates(o1, modeGuaranteed) }); a != 0 {
		t.Fatalf("candidates allocates %.1f times per call, want 0", a)
	}
}
