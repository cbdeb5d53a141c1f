package config

import (
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/model"
)

// FuzzClusterFile: no cluster file panics the decoder or validation, and
// every file that validates builds a scheduler (validation catches what the
// core would refuse) that can run a cycle. `go test` runs the seeds;
// `go test -fuzz FuzzClusterFile` searches further.
func FuzzClusterFile(f *testing.F) {
	for _, s := range []string{
		`nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 4, topology: {nodesPerLayer3: 2, layer3PerLayer2: 2, layer2PerLayer1: 1}}]
policy: {taskPrioritization: TaskRanking, priorityClasses: [{name: hi, weight: 90}]}
teams: [{name: a, quotas: [{instanceType: ml.p5.48xlarge, count: 2}]}, {name: b, lending: Lend, quotas: [{instanceType: ml.p5.48xlarge, gpus: 8}]}]`,
		`instanceTypes: [{name: cpu.big, gpus: 0, vcpu: 64, memoryGiB: 256}]
nodes: [{name: n1, instanceType: cpu.big, labels: {topology.k8s.aws/network-node-layer-1: x}}]
teams: [{name: a, quotas: [{instanceType: cpu.big, vcpu: 32}]}]
policy: {}`,
		`teams: [{name: a, quotas: [{instanceType: ml.p5.48xlarge, count: -1}]}]
policy: {}`,
		`nodeGroups: [{name: g, instanceType: nope, count: 1e9}]`,
		`policy: {starvationBoundSeconds: -5, restartCostSeconds: 1e30}`,
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c model.Cluster
		if err := Decode(data, &c); err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			return
		}
		if n := len(c.ExpandNodes()); n > 5000 {
			return // valid, but too large to build in a fuzz iteration
		}
		s, err := core.New(c, 1)
		if err != nil {
			t.Fatalf("a validated cluster file is refused by the core: %v\n%s", err, data)
		}
		s.Schedule(epochForFuzz)
		if err := s.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	})
}

var epochForFuzz = mustTime("2026-01-01T00:00:00Z")

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
