package sim

import (
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/model"
)

// TestRunRefusesAPlacementWithoutRoom: a decision that puts a whole-node
// job on the node another whole-node job holds (the core's books and its
// placement disagreeing, made here by editing the decision before the run
// applies it) ends the run with an error naming the task, the node and
// the shortfall, instead of a report that shows nothing.
func TestRunRefusesAPlacementWithoutRoom(t *testing.T) {
	jobs := []Job{
		{SubmitS: 0, Name: "j1", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 1, DurationS: 100},
		{SubmitS: 10, Name: "j2", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 1, DurationS: 50},
	}
	var full string
	corrupt := func(now float64, d model.Decision) {
		for i, a := range d.Admissions {
			switch a.Task {
			case "j1":
				full = a.Pods[0].Node
			case "j2":
				d.Admissions[i].Pods[0].Node = full
			}
		}
	}
	if _, err := Run(jobs, Options{Cluster: tinyCluster(2, 2)}); err != nil {
		t.Fatalf("the honest run: %v", err)
	}
	_, err := Run(jobs, Options{Cluster: tinyCluster(2, 2), OnDecision: corrupt})
	if err == nil {
		t.Fatalf("j2 was placed on %s beside j1 and the run reported nothing", full)
	}
	for _, want := range []string{"task j2", "node " + full, "8 GPUs short", "cycle at 10.000000 s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	t.Log(err)
}

// TestLedgerRefusesADownNode: a pod placed on a node the run has failed is
// refused; the node's room is back once it returns and its job is released.
func TestLedgerRefusesADownNode(t *testing.T) {
	s, err := core.New(tinyCluster(1, 1), 1)
	if err != nil {
		t.Fatal(err)
	}
	l := newLedger(s)
	name := s.Nodes()[0].Spec.Name
	j := &job{Job: Job{Name: "j"}, pod: s.Nodes()[0].Capacity}
	at := []model.PodPlacement{{Node: name}}
	l.health(name, false)
	if err := l.admit(j, at); err == nil || !strings.Contains(err.Error(), "down") {
		t.Fatalf("placed on a down node: %v", err)
	}
	l.health(name, true)
	if err := l.admit(j, at); err != nil {
		t.Fatal(err)
	}
	if err := l.admit(&job{Job: Job{Name: "k"}, pod: j.pod}, at); err == nil {
		t.Fatal("a second whole-node pod fit on a full node")
	}
	l.release(j)
	if err := l.admit(&job{Job: Job{Name: "k"}, pod: j.pod}, at); err != nil {
		t.Fatalf("the node's room did not come back: %v", err)
	}
}

// TestRunChecksInvariantsEveryCycle: a generated trace with node failures
// runs to the end with the core's CheckInvariants after every cycle and the
// ledger releasing the pods of tasks a failed node lost, and its decisions
// are those of a run without the check.
func TestRunChecksInvariantsEveryCycle(t *testing.T) {
	c, jobs := Generate(GenOptions{Seed: 3, Teams: 3, Jobs: 300, GPUs: 64, Load: 0.9})
	o := Options{Cluster: c, Seed: 3, NodeMTBFHours: 24, RepairS: 600}
	plain, err := Run(jobs, o)
	if err != nil {
		t.Fatal(err)
	}
	o.CheckEvery = 1
	checked, err := Run(jobs, o)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Preemptions.ByReason["NodeLost"] == nil {
		t.Fatal("no node failure took a task: the test does not exercise the ledger's release on NodeLost")
	}
	if checked.Tasks != plain.Tasks || checked.JCT != plain.JCT {
		t.Fatalf("the check changed the run: %+v %+v against %+v %+v", checked.Tasks, checked.JCT, plain.Tasks, plain.JCT)
	}
}

// TestLedgerRefusesASecondAdmission: a task admitted again while it still
// holds its nodes is refused, not booked twice over its first placement.
func TestLedgerRefusesASecondAdmission(t *testing.T) {
	s, err := core.New(tinyCluster(2, 1), 1)
	if err != nil {
		t.Fatal(err)
	}
	l := newLedger(s)
	j := &job{Job: Job{Name: "j"}, pod: s.Nodes()[0].Capacity.Percent(25)}
	at := []model.PodPlacement{{Node: s.Nodes()[0].Spec.Name}}
	if err := l.admit(j, at); err != nil {
		t.Fatal(err)
	}
	if err := l.admit(j, []model.PodPlacement{{Node: s.Nodes()[1].Spec.Name}}); err == nil || !strings.Contains(err.Error(), "admitted twice") {
		t.Fatalf("a second admission of a running task: %v", err)
	}
	l.release(j)
	if err := l.admit(j, at); err != nil {
		t.Fatalf("admitted again after its release: %v", err)
	}
}
