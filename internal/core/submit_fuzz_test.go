package core

import (
	"encoding/json"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// FuzzSubmit: no task spec, as the API decodes it, panics the core; a spec
// Submit accepts is scheduled without breaking an invariant, and one it
// refuses changes nothing. `go test` runs the seeds; `go test -fuzz
// FuzzSubmit ./internal/core` searches further.
func FuzzSubmit(f *testing.F) {
	for _, s := range []string{
		`{"name": "a", "team": "t0", "instanceType": "ml.p5.48xlarge", "nodes": 2}`,
		`{"name": "b", "team": "t1", "instanceType": "ml.g5.12xlarge", "perNode": {"gpus": 1}, "priority": "high"}`,
		`{"name": "c", "team": "t0", "instanceType": "ml.p5.48xlarge", "nodes": 4, "requiredTopology": "topology.k8s.aws/network-node-layer-3"}`,
		`{"name": "d", "team": "t0", "instanceType": "ml.p5.48xlarge", "perNode": {"gpus": -1, "vcpu": 1e300}}`,
		`{"name": "", "team": "nobody"}`,
	} {
		f.Add([]byte(s))
	}
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{
			{Name: "p5", InstanceType: "ml.p5.48xlarge", Count: 4, Topology: &model.Topology{NodesPerLayer3: 2, Layer3PerLayer2: 1, Layer2PerLayer1: 2}},
			{Name: "g5", InstanceType: "ml.g5.12xlarge", Count: 2},
		},
		Policy: model.Policy{TaskPrioritization: model.TaskRanking, PriorityClasses: []model.PriorityClass{{Name: "high", Weight: 90}}},
		Teams: []model.Team{
			{Name: "t0", Quotas: []model.Quota{{InstanceType: "ml.p5.48xlarge", Count: i64(2)}}},
			{Name: "t1", Quotas: []model.Quota{{InstanceType: "ml.g5.12xlarge", Count: i64(1)}}},
		},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var spec model.TaskSpec
		if err := json.Unmarshal(data, &spec); err != nil {
			return
		}
		s, err := New(c, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Submit(spec, epoch); err != nil {
			if len(s.tasks) != 0 {
				t.Fatalf("a refused spec left a task behind: %v", err)
			}
			return
		}
		s.Schedule(epoch)
		if err := s.CheckInvariants(); err != nil {
			t.Fatalf("after scheduling %s: %v", data, err)
		}
	})
}
