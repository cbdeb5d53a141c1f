package engine

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestRecMapMatchesAMap drives recMap with random inserts, replacements and
// deletes, some committed mid-way, and checks after each batch that it holds
// exactly what a Go map holds, and that every map committed earlier still
// holds what it held then (persistence: a published View never changes).
// It runs with the real hash, and with hashes that collide in part (names
// share long prefixes of hash bits, forcing deep splits) and in full (every
// name in one bucket below the last level).
func TestRecMapMatchesAMap(t *testing.T) {
	real := recHash
	hashes := map[string]func(string) uint64{
		"real":       real,
		"few bits":   func(s string) uint64 { return real(s) & 0x3 << 58 }, // only bits 58-59 differ
		"all alike":  func(string) uint64 { return 42 },
		"two values": func(s string) uint64 { return uint64(len(s) % 2) },
	}
	for name, h := range hashes {
		t.Run(name, func(t *testing.T) {
			defer func(old func(string) uint64) { recHash = old }(recHash)
			recHash = h
			for seed := range uint64(3) {
				checkRecMap(t, seed)
			}
		})
	}
}

func checkRecMap(t *testing.T, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	type snapshot struct {
		m    recMap
		want map[string]*model.TaskRecord
	}
	var snaps []snapshot
	var m recMap
	want := map[string]*model.TaskRecord{}
	for batch := range 120 {
		tx := m.Txn()
		for range 1 + rng.IntN(40) {
			name := fmt.Sprintf("t%d", rng.IntN(300))
			if rng.IntN(3) == 0 {
				old := tx.Delete(name)
				if old != want[name] {
					t.Fatalf("seed %d batch %d: delete %s returned %p, want %p", seed, batch, name, old, want[name])
				}
				delete(want, name)
				continue
			}
			r := &model.TaskRecord{Name: name, Seq: int64(batch)}
			if old := tx.Insert(r); old != want[name] {
				t.Fatalf("seed %d batch %d: insert %s returned %p, want %p", seed, batch, name, old, want[name])
			}
			want[name] = r
			if rng.IntN(10) == 0 { // a commit mid-txn, then the txn goes on
				snaps = append(snaps, snapshot{tx.Commit(), maps.Clone(want)})
			}
		}
		m = tx.Commit()
		snaps = append(snaps, snapshot{m, maps.Clone(want)})
		for i, s := range snaps {
			if err := recMapHolds(s.m, s.want); err != nil {
				t.Fatalf("seed %d batch %d, map %d of %d: %v", seed, batch, i, len(snaps), err)
			}
		}
		if len(snaps) > 10 {
			snaps = snaps[len(snaps)-10:]
		}
	}
}

// recMapHolds checks that m holds exactly want: Len, Get of every name (and
// of names it lacks), and Each.
func recMapHolds(m recMap, want map[string]*model.TaskRecord) error {
	if m.Len() != len(want) {
		return fmt.Errorf("Len %d, want %d", m.Len(), len(want))
	}
	for i := range 300 {
		name := fmt.Sprintf("t%d", i)
		got, ok := m.Get(name)
		if got != want[name] || ok != (want[name] != nil) {
			return fmt.Errorf("Get(%s) = %p %v, want %p", name, got, ok, want[name])
		}
	}
	seen := map[string]*model.TaskRecord{}
	m.Each(func(r *model.TaskRecord) bool {
		seen[r.Name] = r
		return true
	})
	if !maps.Equal(seen, want) {
		return fmt.Errorf("Each visits %d records, want %d", len(seen), len(want))
	}
	return nil
}

// TestRecMapShrinksBack: once every record is deleted the map is empty (no
// nodes left), and a child left with one record is folded into its parent.
func TestRecMapShrinksBack(t *testing.T) {
	tx := recMap{}.Txn()
	for i := range 1000 {
		tx.Insert(&model.TaskRecord{Name: fmt.Sprint("t", i)})
	}
	for i := range 999 {
		tx.Delete(fmt.Sprint("t", i))
	}
	m := tx.Commit()
	if m.root == nil || len(m.root.slots) != 1 || m.root.slots[0].sub != nil {
		t.Fatalf("one record left: want it in the root's only slot, got %+v", m.root)
	}
	tx = m.Txn()
	tx.Delete("t999")
	if m = tx.Commit(); m.root != nil || m.Len() != 0 {
		t.Fatalf("empty map: root %+v, Len %d", m.root, m.Len())
	}
}
