package core

import (
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// probeCluster: two 8-GPU nodes, team a with both nodes as quota and team b
// with none; both lend and borrow.
func probeCluster() model.Cluster {
	two := int64(2)
	return model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: "ml.p5.48xlarge", Count: 2}},
		Teams: []model.Team{
			{Name: "a", Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: &two}}},
			{Name: "b"},
		},
	}
}

func gpuTask(name, team string, gpus int64) model.TaskSpec {
	s := model.TaskSpec{Name: name, Team: team, InstanceType: "ml.p5.48xlarge"}
	s.PerNode.GPUs = gpus
	return s
}

// TestProbeTriesOnlyTheNewTask: once the type is settled, a submission that
// must wait is tried alone, gets its reason and position, and leaves the
// others as they were; one that can start walks the type and starts.
func TestProbeTriesOnlyTheNewTask(t *testing.T) {
	s, err := New(probeCluster(), 1)
	if err != nil {
		t.Fatal(err)
	}
	s.SetLazyWaiting(true)
	// Team a fills both nodes; b's tasks wait for idle compute.
	for _, spec := range []model.TaskSpec{gpuTask("a1", "a", 8), gpuTask("a2", "a", 8),
		gpuTask("b1", "b", 1), gpuTask("b2", "b", 2)} {
		if err := s.Submit(spec, epoch); err != nil {
			t.Fatal(err)
		}
	}
	settle(s, epoch)
	before := s.Waiting()
	if len(before) != 2 {
		t.Fatalf("waiting %+v, want b1 and b2", before)
	}

	now := epoch.Add(time.Minute)
	if err := s.Submit(gpuTask("b3", "b", 4), now); err != nil {
		t.Fatal(err)
	}
	tried, probed := s.tried, s.probed
	d := s.Schedule(now)
	if s.tried-tried != 1 || s.probed != probed+1 || len(d.Admissions)+len(d.Preemptions) != 0 {
		t.Fatalf("tried %d (want 1), probed %d, decision %+v", s.tried-tried, s.probed-probed, d)
	}
	w := s.Waiting()
	if len(w) != 3 || w[0] != before[0] || w[1] != before[1] ||
		w[2].Task != "b3" || w[2].Position != 3 || w[2].Reason.Code == "" {
		t.Fatalf("waiting after the probe: %+v", w)
	}
	if s.Dirty() {
		t.Fatal("a settled probe left the core dirty")
	}

	// Room frees: a2 completes (a walk). Then a submission that fits is
	// probed, would start, and so walks the type and starts.
	if err := s.Complete("a2"); err != nil {
		t.Fatal(err)
	}
	settle(s, now)
	if err := s.Complete("a1"); err != nil {
		t.Fatal(err)
	}
	settle(s, now)
	for _, w := range s.Waiting() {
		t.Logf("waiting %s: %s", w.Task, w.Reason.Message())
	}
	if err := s.Submit(gpuTask("a3", "a", 1), now); err != nil {
		t.Fatal(err)
	}
	d = s.Schedule(now)
	started := false
	for _, a := range d.Admissions {
		started = started || a.Task == "a3"
	}
	if !started {
		t.Fatalf("a3 fits its quota on a free node but did not start: %+v", d)
	}
}
