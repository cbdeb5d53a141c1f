package core

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestVictimOrderDecidesAlike checks blindChoice's contract on random
// states: from the same state, a cycle under victimOrder
// MostRecentlyStarted makes the same decisions as under LeastLostWork up to
// and including its first preemption: the same admissions before it, and
// the same task preempting first (its victims may differ). Without a
// preemption the two cycles are the same. Each cycle is run on a clone, so
// the walk follows the default's decisions. It fails if the decisions
// price victims blind under MostRecentlyStarted (as before session 10).
func TestVictimOrderDecidesAlike(t *testing.T) {
	const seeds = 20
	differ := 0
	for seed := int64(1); seed <= int64(seeds); seed++ {
		r := rand.New(rand.NewSource(seed))
		c := randomCluster(r)
		c.Policy.VictimOrder = model.LeastLostWork
		c.Policy.Preemption = []model.PreemptionTiming{model.PreemptImmediate, model.PreemptPayback}[seed%2]
		s, err := New(c, seed)
		if err != nil {
			t.Fatal(err)
		}
		mrs := s.policy
		mrs.VictimOrder = model.MostRecentlyStarted
		now := epoch
		next := 0
		for op := 0; op < 300; op++ {
			now = now.Add(time.Duration(r.Intn(300)) * time.Second)
			names := liveNames(s)
			switch k := r.Intn(100); {
			case k < 50:
				next++
				_ = s.Submit(randomTask(r, fmt.Sprintf("j%d", next), &c), now)
			case k < 70 && len(names) > 0:
				if n := names[r.Intn(len(names))]; s.Running(n) {
					_ = s.Complete(n)
				}
			case len(names) > 0:
				_ = s.Checkpoint(names[r.Intn(len(names))], now)
			}
			blind, err := s.Clone()
			if err != nil {
				t.Fatal(err)
			}
			if err := blind.SetPolicy(mrs); err != nil {
				t.Fatal(err)
			}
			d, b := s.Schedule(now), blind.Schedule(now)
			if err := blind.CheckInvariants(); err != nil {
				t.Fatalf("seed %d op %d: under MostRecentlyStarted: %v", seed, op, err)
			}
			if len(d.Preemptions) == 0 && len(b.Preemptions) == 0 {
				if fmt.Sprint(d.Admissions) != fmt.Sprint(b.Admissions) {
					t.Fatalf("seed %d op %d: no preemption, yet the admissions differ:\n%v\n%v", seed, op, d.Admissions, b.Admissions)
				}
				continue
			}
			if len(d.Preemptions) == 0 || len(b.Preemptions) == 0 || d.Preemptions[0].For != b.Preemptions[0].For {
				t.Fatalf("seed %d op %d: the first preemptions differ:\n%v\n%v", seed, op, d.Preemptions, b.Preemptions)
			}
			first := d.Preemptions[0].For
			for k, a := range d.Admissions {
				if k >= len(b.Admissions) || fmt.Sprint(a.Task) != fmt.Sprint(b.Admissions[k].Task) {
					t.Fatalf("seed %d op %d: admission %d differs before %s preempts:\n%v\n%v", seed, op, k, first, d.Admissions, b.Admissions)
				}
				if a.Task == first {
					break
				}
				if fmt.Sprint(a) != fmt.Sprint(b.Admissions[k]) {
					t.Fatalf("seed %d op %d: admission %d differs before %s preempts:\n%v\n%v", seed, op, k, first, a, b.Admissions[k])
				}
			}
			if fmt.Sprint(d.Preemptions) != fmt.Sprint(b.Preemptions) {
				differ++
			}
		}
	}
	if differ == 0 {
		t.Fatal("no cycle took other victims under MostRecentlyStarted: the test shows nothing")
	}
	t.Logf("%d cycles took other victims under MostRecentlyStarted", differ)
}
