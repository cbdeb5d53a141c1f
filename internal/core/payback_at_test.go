package core

import (
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestPaybackAtIsWhenItPreempts: a within-quota task waiting for payback
// reclaims at the time its reason gave, also when its wait began at a
// fraction of a second (a server's clock), whatever second of the minute.
func TestPaybackAtIsWhenItPreempts(t *testing.T) {
	c := ownerAndBorrower()
	t0 := time.Unix(1767225600, 0)
	for sec := 0; sec < 60; sec++ {
		s, err := New(c, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"v1", "v2"} {
			if err := s.Submit(model.TaskSpec{Name: n, Team: "v", InstanceType: "ml.p5.48xlarge"}, t0); err != nil {
				t.Fatal(err)
			}
		}
		s.Schedule(t0)
		// Not cheap to take (20 min of work at risk), and checkpointed at a
		// fraction of a second, so that for some second of the minute the
		// rent reaches the price just past a whole second that is a tick.
		for _, n := range []string{"v1", "v2"} {
			if err := s.Checkpoint(n, t0.Add(10*time.Hour-20*time.Minute+900*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
		}
		at := t0.Add(10*time.Hour + time.Duration(sec)*time.Second + 700*time.Millisecond)
		if err := s.Submit(model.TaskSpec{Name: "o1", Team: "o", InstanceType: "ml.p5.48xlarge"}, at); err != nil {
			t.Fatal(err)
		}
		s.Schedule(at)
		// The reason from the first tick on: in the submission's own cycle
		// the cost clock is still before the wait began, and so is the
		// price (noticed, left to the scheduling rules' owners).
		tick := at.Truncate(time.Minute).Add(time.Minute)
		var want int64
		for _, w := range s.Schedule(tick).Waiting {
			if w.Task == "o1" {
				want = w.Reason.At
				if w.Reason.Code != model.WaitingForPayback || !w.Reason.Ahead || want == 0 {
					t.Fatalf("o1 submitted at %v: %+v", at, w.Reason)
				}
			}
		}
		for preempted := false; !preempted; {
			tick = tick.Add(time.Minute)
			if tick.Sub(at) > 24*time.Hour {
				t.Fatalf("o1 submitted at %v: no preemption within a day", at)
			}
			preempted = len(s.Schedule(tick).Preemptions) > 0
		}
		if tick.Unix() != want {
			t.Fatalf("o1 submitted at %v: preempted at %v, its reason said %v", at, tick.UTC(), time.Unix(want, 0).UTC())
		}
	}
}
