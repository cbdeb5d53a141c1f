package core

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestQueueInsertOlderSubmissions: tasks that arrive after the queue was
// sorted but belong before its end (a replayed or restored task keeps its
// given submit time; a task of a higher class ranks ahead) are filed in
// their places by insertTail, not by a full sort, and the queue a cycle
// reports is the one queueLess gives: class first, then submit time, then
// submission order. The high-class tasks land before the stale entry of
// the admitted blocker (liveFrom moves back) and among the entries the
// list's bounds have read (folded in); CheckInvariants compares the lists,
// liveFrom and the bounds from scratch. The differential test never
// submits with a given submit time, so this path is exercised here.
func TestQueueInsertOlderSubmissions(t *testing.T) {
	one := int64(1)
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: benchType, Count: 1}},
		Policy: model.Policy{TaskPrioritization: model.TaskRanking,
			PriorityClasses: []model.PriorityClass{{Name: "high", Weight: 90}, {Name: "low", Weight: 10}}},
		Teams: []model.Team{{Name: "a", PreemptTeamTasks: model.PreemptNever, Quotas: []model.Quota{{InstanceType: benchType, Count: &one}}}},
	}
	s, err := New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		name string
		rank int
		at   time.Time
		seq  int
	}
	var all []want
	seq := 0
	submit := func(name, class string, at time.Time) {
		t.Helper()
		spec := model.TaskSpec{Name: name, Team: "a", InstanceType: benchType, Priority: class, SubmitTime: at,
			PerNode: model.Request{GPUs: 8}}
		if err := s.Submit(spec, at); err != nil {
			t.Fatal(err)
		}
		seq++
		if name != "blocker" {
			all = append(all, want{name, map[string]int{"high": 2, "low": 1, "": 0}[class], at, seq})
		}
	}
	submit("blocker", "low", epoch)
	for k := 0; k < 40; k++ {
		submit(fmt.Sprintf("q%02d", k), "low", epoch.Add(time.Duration(10*k+10)*time.Second))
	}
	now := epoch.Add(time.Hour)
	if d := s.Schedule(now); len(d.Admissions) != 1 || d.Admissions[0].Task != "blocker" {
		t.Fatalf("admitted %v, want the blocker alone", d.Admissions)
	}
	// A cycle that walks the type again moves liveFrom past the blocker's
	// stale entry (livestart.go): the high-class tasks go before it.
	submit("q40", "low", epoch.Add(410*time.Second))
	now = now.Add(time.Second)
	s.Schedule(now)
	tm := s.teams[s.teamIdx["a"]]
	if i := s.typeIdx[benchType]; i >= len(tm.liveFrom) || tm.liveFrom[i] != 1 {
		t.Fatalf("liveFrom %v, want 1 for the type (the blocker's stale entry skipped)", tm.liveFrom)
	}
	before := tm.inserts
	// Older submissions (given submit times between the queued ones) and
	// two of a higher class: each batch is shorter than maxInsert.
	for round := 0; round < 3; round++ {
		for k := 0; k < 6; k++ {
			submit(fmt.Sprintf("r%d-%d", round, k), "low", epoch.Add(time.Duration(10*(7*k+round)+5)*time.Second))
		}
		submit(fmt.Sprintf("h%d", round), "high", epoch.Add(time.Duration(400-round)*time.Second))
		now = now.Add(time.Second)
		d := s.Schedule(now)
		if len(d.Admissions)+len(d.Preemptions) != 0 {
			t.Fatalf("round %d: admitted %v, preempted %v; want nothing (one node, held by the blocker)", round, d.Admissions, d.Preemptions)
		}
		if err := s.CheckInvariants(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		slices.SortFunc(all, func(x, y want) int {
			switch {
			case x.rank != y.rank:
				return y.rank - x.rank
			case !x.at.Equal(y.at):
				return x.at.Compare(y.at)
			}
			return x.seq - y.seq
		})
		if len(d.Waiting) != len(all) {
			t.Fatalf("round %d: %d waiting, want %d", round, len(d.Waiting), len(all))
		}
		for k, w := range d.Waiting {
			if w.Task != all[k].name || w.Position != k+1 {
				t.Fatalf("round %d: position %d is %s (listed at %d), want %s", round, k+1, w.Task, w.Position, all[k].name)
			}
		}
	}
	if tm.inserts == before {
		t.Fatal("no tail was filed in place: the test does not exercise insertTail")
	}
	t.Logf("%d tails filed in place", tm.inserts-before)
}
