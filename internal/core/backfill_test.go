package core

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestBackfillMarkIgnoresQueueStorage: whether a task starts as a backfill
// (noteBackfill) is a function of the logical state, not of how its team's
// queue is stored. Team a, three nodes: high (two nodes) and low (one) start
// at 0; top-1 takes low at 10m (low has now lost its work to priority
// once); top-2 takes high at 20m, and low restarts in the node high leaves
// while high waits for two nodes: a backfill. At 21m top-1 ends and high
// takes low at once (a backfill is never spared), instead of waiting the
// starvation bound. The original core still holds high's entry, stale
// since its admission (two tasks too big to start keep the stale entries
// under half the list); a clone taken at 15m has the same logical state but
// drops stale entries, so high comes back at the end of the queue, where the
// old walk did not look: the clone marked low no backfill and spared it
// until 50m. Both must decide alike, and both incremental and full rescan.
func TestBackfillMarkIgnoresQueueStorage(t *testing.T) {
	quota := int64(3)
	nodes := make([]model.Node, 3)
	for k := range nodes {
		nodes[k] = model.Node{Name: fmt.Sprintf("n-%d", k), InstanceType: benchType}
	}
	c := model.Cluster{Nodes: nodes,
		Policy: model.Policy{Preemption: model.PreemptImmediate, TaskPrioritization: model.TaskRanking,
			PriorityClasses: []model.PriorityClass{{Name: "top", Weight: 90}, {Name: "high", Weight: 50}, {Name: "low", Weight: 10}}},
		Teams: []model.Team{{Name: "a", PreemptTeamTasks: model.PreemptLowerPriority,
			Quotas: []model.Quota{{InstanceType: benchType, Count: &quota}}}},
	}
	task := func(name, prio string, n int) model.TaskSpec {
		return model.TaskSpec{Name: name, Team: "a", Priority: prio, InstanceType: benchType, Nodes: n}
	}
	at := func(d time.Duration) time.Time { return epoch.Add(d) }
	type step struct {
		at    time.Duration
		input func(s *Scheduler) error
	}
	before := []step{
		{0, func(s *Scheduler) error {
			for _, sp := range []model.TaskSpec{task("high", "high", 2), task("low", "low", 1), task("big-1", "low", 3), task("big-2", "low", 3)} {
				if err := s.Submit(sp, at(0)); err != nil {
					return err
				}
			}
			return nil
		}},
		{10 * time.Minute, func(s *Scheduler) error { return s.Submit(task("top-1", "top", 1), at(10*time.Minute)) }},
	}
	after := []step{
		{20 * time.Minute, func(s *Scheduler) error { return s.Submit(task("top-2", "top", 1), at(20*time.Minute)) }},
		{21 * time.Minute, func(s *Scheduler) error { return s.Complete("top-1") }},
		{22 * time.Minute, nil},
	}
	p := newDiffPair(t, c)
	for _, st := range before {
		if err := p.both(st.input); err != nil {
			t.Fatal(err)
		}
		a, b := p.inc.Schedule(at(st.at)), p.ref.Schedule(at(st.at))
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("at %v: incremental and full rescan differ: %s", st.at, firstDiff(a, b))
		}
	}
	high := p.inc.tasks["high"]
	if !slices.Contains(high.team.pending, high) {
		t.Fatal("setup: the original core no longer holds high's stale entry; the two histories would not differ")
	}
	cores := map[string]*Scheduler{"incremental": p.inc, "full rescan": p.ref}
	for name, s := range map[string]*Scheduler{"incremental": p.inc, "full rescan": p.ref} {
		cl, err := s.Clone()
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(cl.tasks["high"].team.pending, cl.tasks["high"]) {
			t.Fatal("setup: the clone holds high's stale entry")
		}
		cores[name+", cloned at 15m"] = cl
	}
	names := []string{"incremental", "full rescan", "incremental, cloned at 15m", "full rescan, cloned at 15m"}
	for _, st := range after {
		var first model.Decision
		for k, name := range names {
			s := cores[name]
			if st.input != nil {
				if err := st.input(s); err != nil {
					t.Fatalf("%s at %v: %v", name, st.at, err)
				}
			}
			d := s.Schedule(at(st.at))
			if k == 0 {
				first = d
			} else if !reflect.DeepEqual(first, d) {
				t.Fatalf("at %v: %s decides unlike %s: %s", st.at, name, names[0], firstDiff(first, d))
			}
			if st.at == 20*time.Minute && !s.tasks["low"].backfill {
				t.Errorf("%s: low restarted at 20m while high waited, but is not marked a backfill", name)
			}
		}
		if st.at == 21*time.Minute && !slices.ContainsFunc(first.Preemptions, func(pr model.Preemption) bool { return pr.Task == "low" }) {
			t.Errorf("at 21m: high did not take low, a backfill: %v %v", first.Preemptions, first.Admissions)
		}
	}
}

// checkOutranked checks outranked's walk, as t starts, against the plain
// reading of its contract: every entry of t's team's queue.
func checkOutranked(t *task) error {
	if got, want := outranked(t), anyOutranks(t.team.pending, t); got != want {
		return fmt.Errorf("task %s starts: outranked says %v, the whole queue %v (sorted %v, tail only %v, %d filed of %d, %d stale)",
			t.spec.Name, got, want, t.team.queueSorted, t.team.tailOnly, t.team.sortedLen, len(t.team.pending), t.team.stale)
	}
	return nil
}

// TestOutrankedCatchesTheListOnlyWalk: the randomized runs' check
// (checkOutranked, at every start) tells session 19's walk, which read only
// the per-type list and missed the queue's tail, from the contract. Without
// this the check could pass for want of a state that tells them apart.
func TestOutrankedCatchesTheListOnlyWalk(t *testing.T) {
	listOnly := func(t *task) bool {
		q := t.team.byType[t.typ.idx]
		for _, o := range q {
			if !ownVictim(o, t) {
				return false
			}
			if o.state == pending {
				return true
			}
		}
		return false
	}
	differs := 0
	for seed := int64(1); seed <= 20 && differs == 0; seed++ {
		r := rand.New(rand.NewSource(seed))
		c := randomCluster(r)
		c.Policy.Preemption = model.PreemptImmediate
		s, err := New(c, seed)
		if err != nil {
			t.Fatal(err)
		}
		s.onStart = func(tk *task) {
			if err := checkOutranked(tk); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if tk.typ.idx < len(tk.team.byType) && listOnly(tk) != anyOutranks(tk.team.pending, tk) {
				differs++
			}
		}
		now := epoch
		for op := 0; op < 600; op++ {
			now = now.Add(time.Duration(r.Intn(300)) * time.Second)
			if names := liveNames(s); r.Intn(3) > 0 {
				_ = s.Submit(randomTask(r, fmt.Sprintf("j%d", op), &c), now)
			} else if len(names) > 0 && s.Running(names[0]) {
				_ = s.Complete(names[0])
			}
			s.Schedule(now)
		}
	}
	t.Logf("%d starts where the two walks disagree", differs)
	if differs == 0 {
		t.Fatal("no start in 20 random runs where the list-only walk and the whole queue disagree")
	}
}
