package core

import (
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// A task adopted after a restart holds exactly its recorded nodes and GPUs;
// one whose record no longer fits is refused with nothing changed, and can
// then be restored pending.
func TestAdoptRunningTask(t *testing.T) {
	c := model.Cluster{Policy: model.Policy{PriorityClasses: []model.PriorityClass{{Name: "training", Weight: 1}}}}
	s, err := New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"n1", "n2"} {
		if err := s.AddNode(model.Node{Name: n, InstanceType: "ml.p5.48xlarge"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetTeam(model.Team{Name: "a", Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: new(int64(2))}}}); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	started := time.Unix(400, 0)
	gang := model.TaskSpec{Name: "gang", Team: "a", InstanceType: "ml.p5.48xlarge", Priority: "training", Nodes: 2, PerNode: model.Request{GPUs: 2}}
	pods := []model.PodPlacement{{Rank: 0, Node: "n2", GPUs: []int{5, 6}}, {Rank: 1, Node: "n1", GPUs: []int{0, 3}}}
	if err := s.Adopt(gang, 1, 0, time.Unix(900, 0), started, pods, now); err != nil {
		t.Fatal(err)
	}
	info, _ := s.Task("gang")
	got := s.placement(s.tasks["gang"])
	if info.State != "Running" || !info.StartedAt.Equal(started) || info.Resumes != 1 || len(got) != 2 || got[0].Node != "n2" || got[1].Node != "n1" {
		t.Fatalf("adopted task: %+v on %+v", info, got)
	}
	if g := got[0].GPUs; len(g) != 2 || g[0] != 5 || g[1] != 6 {
		t.Fatalf("rank 0 GPUs %v, want the recorded [5 6]", g)
	}
	for _, n := range s.Nodes() {
		if n.FreeGPUs != 6 {
			t.Fatalf("node %s has %d free GPUs, want 6", n.Spec.Name, n.FreeGPUs)
		}
	}
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}

	// Taken GPUs, an unknown node and a short gang are each refused.
	clash := model.TaskSpec{Name: "clash", Team: "a", InstanceType: "ml.p5.48xlarge", Priority: "training", PerNode: model.Request{GPUs: 1}}
	for _, bad := range [][]model.PodPlacement{
		{{Node: "n2", GPUs: []int{6}}},
		{{Node: "gone", GPUs: []int{1}}},
		{},
	} {
		if err := s.Adopt(clash, 0, 0, time.Time{}, started, bad, now); err == nil {
			t.Fatalf("adopting on %v was accepted", bad)
		}
	}
	if _, ok := s.Task("clash"); ok {
		t.Fatal("a refused adoption left the task behind")
	}
	if err := s.Restore(clash, 1, 0, time.Time{}, false, now); err != nil {
		t.Fatal(err)
	}
	d := s.Schedule(now)
	if len(d.Admissions) != 1 {
		t.Fatalf("after adoption the next cycle admitted %+v", d.Admissions)
	}
	p := d.Admissions[0].Pods[0]
	held := map[string][]int{"n2": {5, 6}, "n1": {0, 3}}[p.Node]
	for _, g := range held {
		if p.GPUs[0] == g {
			t.Fatalf("clash got GPU %d of %s, which the adopted gang holds", g, p.Node)
		}
	}
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
