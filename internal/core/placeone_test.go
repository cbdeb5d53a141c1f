package core

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// kueueTree is the node tree of Kueue's TAS placement tests, as the kueue
// tas-* scenarios translate it: block b1 holds rack r1 (x3) and r2 (x5, x1,
// x6); b2 holds r1 (x2) and r2 (host x4 of two nodes).
func kueueTree() []model.Node {
	var out []model.Node
	for _, n := range [][4]string{
		{"x3", "b1", "b1-r1", "x3"}, {"x5", "b1", "b1-r2", "x5"}, {"x1", "b1", "b1-r2", "x1"}, {"x6", "b1", "b1-r2", "x6"},
		{"x2", "b2", "b2-r1", "x2"}, {"x4-0", "b2", "b2-r2", "x4"}, {"x4-1", "b2", "b2-r2", "x4"},
	} {
		out = append(out, model.Node{Name: n[0], InstanceType: benchType, Labels: map[string]string{
			model.LabelLayer1: n[1], model.LabelLayer2: n[2], model.LabelLayer3: n[3], "zone": "z" + n[1]}})
	}
	return out
}

// TestSinglePodTightestDomains: a single-node task that names a level
// takes, among the tightest nodes, the one in the tightest domain of that
// level, then its tightest child, down to a node; one that names none
// takes the first of the tightest nodes, as before; where the chosen
// path's node is outside its node selector it falls back to that order.
func TestSinglePodTightestDomains(t *testing.T) {
	count := int64(7)
	for _, c := range []struct {
		name, req, pref string
		sel             map[string]string
		want            string
	}{
		{"block required: tighter block b2, its tighter rack r1", model.LabelLayer1, "", nil, "x2"},
		{"block preferred: the same", "", model.LabelLayer1, nil, "x2"},
		{"rack required: the first of the tightest racks, whichever block", model.LabelLayer2, "", nil, "x3"},
		{"host required: the first of the tightest hosts", model.LabelLayer3, "", nil, "x3"},
		{"host preferred, block required: from the preferred level", model.LabelLayer1, model.LabelLayer3, nil, "x3"},
		{"no request: the first of the tightest nodes", "", "", nil, "x3"},
		{"the path's node outside the selector: the first of the tightest that match", model.LabelLayer1, "", map[string]string{"zone": "zb1"}, "x3"},
	} {
		s, err := New(model.Cluster{Nodes: kueueTree(),
			Teams: []model.Team{{Name: "a", Quotas: []model.Quota{{InstanceType: benchType, Count: &count}}}}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Submit(model.TaskSpec{Name: "wl", Team: "a", InstanceType: benchType,
			RequiredTopology: c.req, PreferredTopology: c.pref, NodeSelector: c.sel}, epoch); err != nil {
			t.Fatal(err)
		}
		d := s.Schedule(epoch)
		if len(d.Admissions) != 1 || len(d.Admissions[0].Pods) != 1 || d.Admissions[0].Pods[0].Node != c.want {
			t.Errorf("%s: admitted %+v, want it on %s", c.name, d.Admissions, c.want)
		}
	}
}

// TestTightestInTreeMatchesReference compares the descent (placeone.go),
// with both of its passes at the named level (over domains, over the
// tightest bucket's nodes), against a dumb reference on random labelled
// trees and random fills: over every node of the tightest bucket, the
// lexicographically least path of (fit, id) per level from the named level
// down, then the lowest position.
func TestTightestInTreeMatchesReference(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewSource(seed))
		var nodes []model.Node
		for b := 0; b < 1+r.Intn(4); b++ {
			for k := 0; k < 1+r.Intn(4); k++ {
				for h := 0; h < 1+r.Intn(3); h++ {
					for n := 0; n < 1+r.Intn(4); n++ {
						nodes = append(nodes, model.Node{Name: fmt.Sprintf("n%d-%d-%d-%d", b, k, h, n), InstanceType: benchType,
							Labels: map[string]string{model.LabelLayer1: fmt.Sprintf("b%d", b), model.LabelLayer2: fmt.Sprintf("b%d-r%d", b, k),
								model.LabelLayer3: fmt.Sprintf("b%d-r%d-h%d", b, k, h)}})
					}
				}
			}
		}
		r.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
		count := int64(len(nodes))
		s, err := New(model.Cluster{Nodes: nodes,
			Teams: []model.Team{{Name: "a", Quotas: []model.Quota{{InstanceType: benchType, Count: &count}}}}}, seed)
		if err != nil {
			t.Fatal(err)
		}
		it := s.types[s.typeIdx[benchType]]
		for k, p := range r.Perm(len(it.nodes))[:r.Intn(len(it.nodes))] {
			name := fmt.Sprintf("fill%d", k)
			if err := s.Submit(model.TaskSpec{Name: name, Team: "a", InstanceType: benchType,
				PerNode: model.Request{GPUs: int64(1 + r.Intn(8))}}, epoch); err != nil {
				t.Fatal(err)
			}
			s.assign(s.tasks[name], []int32{it.nodes[p]})
		}
		for q, gpus := range []int64{1, 2, 4, 8} {
			for l, label := range model.DefaultTopologyLevels {
				name := fmt.Sprintf("t%d-%d", q, l)
				if err := s.Submit(model.TaskSpec{Name: name, Team: "a", InstanceType: benchType,
					PerNode: model.Request{GPUs: gpus}, RequiredTopology: label}, epoch.Add(time.Second)); err != nil {
					t.Fatal(err)
				}
				tk := s.tasks[name]
				got := s.tightestInTree(tk, keyFor(tk), false)
				if want := referenceTightest(s, tk, l); got != want {
					t.Fatalf("seed %d, %d GPUs from level %d: descent chose %d, reference %d", seed, gpus, l, got, want)
				}
			}
		}
	}
}

// referenceTightest is the dumb version of tightestInTree for a fully
// labelled type where every node is usable.
func referenceTightest(s *Scheduler, t *task, l int) int32 {
	it := t.typ
	ix := &it.index
	k0 := keyFor(t)
	k := k0
	for k < len(ix.counts) && ix.counts[k] == 0 {
		k++
	}
	if k >= len(ix.counts) {
		return -1
	}
	best, bestPath := int32(-1), []int{}
	for p, ni := range it.nodes {
		n := s.nodes[ni]
		if int(ix.key[p]) != k {
			continue
		}
		var path []int
		for m := l; m < len(n.dom); m++ {
			d := it.topo.levels[m][n.dom[m]]
			path = append(path, d.fit(k0), int(d.id))
		}
		path = append(path, p)
		if best < 0 || less(path, bestPath) {
			best, bestPath = ni, path
		}
	}
	return best
}

func less(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
