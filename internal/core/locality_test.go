package core

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// localityStats sums the spread of multi-node placements over a run.
type localityStats struct {
	multi, optimal, spreadSum int
	usedNodeMinutes, minutes  int
}

func (a *localityStats) add(b localityStats) {
	a.multi += b.multi
	a.optimal += b.optimal
	a.spreadSum += b.spreadSum
	a.usedNodeMinutes += b.usedNodeMinutes
	a.minutes += b.minutes
}

// localityRun replays one day of a synthetic workload on a 128-node,
// three-layer cluster (8 nodes per layer-3 node, 4 layer-3 per layer-2, 2
// layer-2 per layer-1): jobs of 1 to 16 whole nodes, 10 to 60 minutes long,
// arriving (Poisson) at a rate for 60-80% load, half of them preferring one
// layer-3 node. With firstFit the core places gangs on the lowest-numbered
// free nodes, ignoring topology, for comparison.
func localityRun(t *testing.T, seed int64, firstFit bool) localityStats {
	count := int64(128)
	c := model.Cluster{
		NodeGroups: []model.NodeGroup{{Name: "p5", InstanceType: benchType, Count: 128,
			Topology: &model.Topology{NodesPerLayer3: 8, Layer3PerLayer2: 4, Layer2PerLayer1: 2}}},
		Teams: []model.Team{{Name: "a", Quotas: []model.Quota{{InstanceType: benchType, Count: &count}}}},
	}
	s, err := New(c, seed)
	if err != nil {
		t.Fatal(err)
	}
	s.firstFit = firstFit
	r := rand.New(rand.NewSource(seed))
	sizes := []int{1, 2, 2, 4, 4, 8, 16}
	meanNodes := 37.0 / 7
	perMinute := (0.6 + 0.2*r.Float64()) * 128 / (meanNodes * 35)
	duration := map[string]time.Duration{}
	ends := map[string]time.Time{}
	it := s.types[s.typeIdx[benchType]]
	var st localityStats
	for minute, next := 0, 0; minute < 24*60; minute++ {
		now := epoch.Add(time.Duration(minute) * time.Minute)
		for _, name := range sortedKeys(ends) {
			if !now.Before(ends[name]) {
				if err := s.Complete(name); err != nil {
					t.Fatal(err)
				}
				delete(ends, name)
			}
		}
		for k := poisson(r, perMinute); k > 0; k-- {
			next++
			spec := model.TaskSpec{Name: fmt.Sprintf("j%d", next), Team: "a", InstanceType: benchType, Nodes: sizes[r.Intn(len(sizes))]}
			if r.Intn(2) == 0 {
				spec.PreferredTopology = model.LabelLayer3
			}
			duration[spec.Name] = time.Duration(10+r.Intn(51)) * time.Minute
			if err := s.Submit(spec, now); err != nil {
				t.Fatal(err)
			}
		}
		for _, a := range s.Schedule(now).Admissions {
			ends[a.Task] = now.Add(duration[a.Task])
			if len(a.Pods) > 1 {
				st.multi++
				st.spreadSum += a.Spread
				if a.Spread == a.BestSpread {
					st.optimal++
				}
			}
		}
		st.usedNodeMinutes += len(it.nodes) - it.index.atLeast(len(it.index.counts)-1)
		st.minutes++
	}
	return st
}

func sortedKeys(m map[string]time.Time) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// poisson draws from a Poisson distribution by Knuth's method.
func poisson(r *rand.Rand, mean float64) int {
	limit, p, n := math.Exp(-mean), 1.0, 0
	for {
		p *= r.Float64()
		if p <= limit {
			return n
		}
		n++
	}
}

// TestLocality: over many seeds at 60-80% load, at least 95% of multi-node
// placements are at the lowest spread possible when they were made. It logs
// the same workload under first-fit for comparison.
func TestLocality(t *testing.T) {
	seeds := 10
	if testing.Short() {
		seeds = 3
	}
	var best, first localityStats
	for seed := int64(1); seed <= int64(seeds); seed++ {
		best.add(localityRun(t, seed, false))
		first.add(localityRun(t, seed, true))
	}
	report := func(name string, st localityStats) float64 {
		opt := float64(st.optimal) / float64(st.multi)
		t.Logf("%-9s %d multi-node placements, locality optimality %.3f, mean spread %.2f, mean load %.2f",
			name, st.multi, opt, float64(st.spreadSum)/float64(st.multi), float64(st.usedNodeMinutes)/float64(st.minutes*128))
		return opt
	}
	if opt := report("best fit", best); opt < 0.95 {
		t.Fatalf("locality optimality %.3f < 0.95", opt)
	}
	report("first fit", first)
}
