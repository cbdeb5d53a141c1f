package core

import (
	"fmt"
	"testing"
	"time"
)

// TestCloneDecidesLikeTheOriginal: after random operations, a clone and the
// original make the same decisions on the next inputs.
func TestCloneDecidesLikeTheOriginal(t *testing.T) {
	for seed := int64(200); seed < 215; seed++ {
		s, c, now := cloneAfterRandomOps(t, seed)
		for step := 0; step < 20; step++ {
			now = now.Add(5 * time.Minute)
			names := liveNames(s)
			if len(names) > 0 && s.Running(names[0]) {
				_ = s.Complete(names[0])
				_ = c.Complete(names[0])
			}
			if step == 0 { // a quota cut right after cloning requeues running tasks
				tm := s.Teams()[0]
				tm.Quotas = nil
				_, _ = s.SetTeam(tm), c.SetTeam(tm)
			}
			a, b := s.Schedule(now), c.Schedule(now)
			if fmt.Sprint(a.Admissions, a.Preemptions) != fmt.Sprint(b.Admissions, b.Preemptions) || !sameWaiting(a.Waiting, b.Waiting) {
				t.Fatalf("seed %d step %d: the clone decides differently:\n%v %v\n%v %v", seed, step, a.Admissions, a.Preemptions, b.Admissions, b.Preemptions)
			}
			if err := c.CheckInvariants(); err != nil {
				t.Fatalf("seed %d: clone invariants: %v", seed, err)
			}
		}
	}
}

func cloneAfterRandomOps(t *testing.T, seed int64) (*Scheduler, *Scheduler, time.Time) {
	t.Helper()
	var s *Scheduler
	now := epoch
	captured := func(sched *Scheduler, at time.Time) { s, now = sched, at }
	randomRunKeep(t, seed, 300, captured)
	c, err := s.Clone()
	if err != nil {
		t.Fatal(err)
	}
	return s, c, now
}
