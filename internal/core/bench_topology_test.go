package core

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// topoCluster is a three-layer cluster of ml.p5.48xlarge nodes.
func topoCluster(nodes, perL3, l3PerL2, l2PerL1 int, classes bool) model.Cluster {
	count := int64(nodes)
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: benchType, Count: nodes,
			Topology: &model.Topology{NodesPerLayer3: perL3, Layer3PerLayer2: l3PerL2, Layer2PerLayer1: l2PerL1}}},
		Teams: []model.Team{{Name: "a", Quotas: []model.Quota{{InstanceType: benchType, Count: &count}}}},
	}
	if classes {
		c.Policy = model.Policy{TaskPrioritization: model.TaskRanking,
			PriorityClasses: []model.PriorityClass{{Name: "high", Weight: 90}, {Name: "low", Weight: 10}}}
	}
	return c
}

// BenchmarkTopologyPlace: one 16-node gang that requires one layer-3 node,
// on 10,000 nodes (32 per layer-3 node, 8 layer-3 per layer-2, 8 layer-2 per
// layer-1) that are 70% full: 70% of nodes, chosen at random, run a 1-node
// task of 1 to 8 GPUs. Measures the placement step alone.
func BenchmarkTopologyPlace(b *testing.B) {
	s, err := New(topoCluster(10000, 32, 8, 8, false), 1)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(3))
	it := s.types[s.typeIdx[benchType]]
	for k, p := range r.Perm(len(it.nodes))[:7000] {
		name := fmt.Sprintf("fill%d", k)
		if err := s.Submit(model.TaskSpec{Name: name, Team: "a", InstanceType: benchType,
			PerNode: model.Request{GPUs: int64(1 + r.Intn(8))}}, epoch); err != nil {
			b.Fatal(err)
		}
		s.assign(s.tasks[name], []int32{it.nodes[p]})
	}
	if err := s.Submit(model.TaskSpec{Name: "gang", Team: "a", InstanceType: benchType, Nodes: 16,
		RequiredTopology: model.LabelLayer3}, epoch); err != nil {
		b.Fatal(err)
	}
	gang := s.tasks["gang"]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if nodes, _ := s.place(gang, placeMode{}); nodes == nil {
			b.Fatal("the gang did not place")
		}
	}
}

// BenchmarkTopologyPreempt: 2,000 nodes (16 per layer-3 node, 5 layer-3 per
// layer-2, 5 layer-2 per layer-1) full with 700 low-priority tasks of one
// team (600 two-node, 100 eight-node, checkpoints at random times); a
// high-priority 16-node gang that requires one layer-3 node arrives. One
// cycle: it chooses victims concentrated in one domain, at least lost work,
// and lands.
func BenchmarkTopologyPreempt(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := New(topoCluster(2000, 16, 5, 5, true), 1)
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewSource(4))
		for k := 0; k < 700; k++ {
			nodes := 2
			if k%7 == 0 {
				nodes = 8
			}
			_ = s.Submit(model.TaskSpec{Name: fmt.Sprintf("low%d", k), Team: "a", Priority: "low",
				InstanceType: benchType, Nodes: nodes}, epoch)
		}
		if d := s.Schedule(epoch); len(d.Admissions) != 700 {
			b.Fatalf("setup admitted %d of 700", len(d.Admissions))
		}
		for k := 0; k < 700; k++ {
			_ = s.Checkpoint(fmt.Sprintf("low%d", k), epoch.Add(time.Duration(r.Intn(3600))*time.Second))
		}
		_ = s.Submit(model.TaskSpec{Name: "gang", Team: "a", Priority: "high", InstanceType: benchType, Nodes: 16,
			RequiredTopology: model.LabelLayer3}, epoch.Add(time.Hour))
		b.StartTimer()
		d := s.Schedule(epoch.Add(time.Hour))
		if len(d.Admissions) != 1 || d.Admissions[0].Spread != 1 || len(d.Preemptions) == 0 {
			b.Fatalf("gang: %d admissions, %d preemptions", len(d.Admissions), len(d.Preemptions))
		}
	}
}

// BenchmarkTopologyPlaceOne: one single-node task of 8 GPUs on the cluster
// of BenchmarkTopologyPlace (10,000 nodes, 70% running a 1-8 GPU task),
// without a topology request, and requiring or preferring a level: the
// placement step alone. A task that names a level takes, among the tightest
// nodes, the one in the tightest domains from that level down (placeone.go):
// one pass over that level's domains (313 layer-3, 40 layer-2, 5 layer-1).
func BenchmarkTopologyPlaceOne(b *testing.B) {
	s, err := New(topoCluster(10000, 32, 8, 8, false), 1)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(3))
	it := s.types[s.typeIdx[benchType]]
	for k, p := range r.Perm(len(it.nodes))[:7000] {
		name := fmt.Sprintf("fill%d", k)
		if err := s.Submit(model.TaskSpec{Name: name, Team: "a", InstanceType: benchType,
			PerNode: model.Request{GPUs: int64(1 + r.Intn(8))}}, epoch); err != nil {
			b.Fatal(err)
		}
		s.assign(s.tasks[name], []int32{it.nodes[p]})
	}
	for _, c := range []struct{ name, req, pref string }{
		{"none", "", ""},
		{"required-layer-1", model.LabelLayer1, ""},
		{"required-layer-3", model.LabelLayer3, ""},
		{"preferred-layer-3", "", model.LabelLayer3},
	} {
		if err := s.Submit(model.TaskSpec{Name: c.name, Team: "a", InstanceType: benchType,
			RequiredTopology: c.req, PreferredTopology: c.pref}, epoch); err != nil {
			b.Fatal(err)
		}
		t := s.tasks[c.name]
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if nodes, _ := s.place(t, placeMode{}); nodes == nil {
					b.Fatal("the task did not place")
				}
			}
		})
	}
}
