package engine

import (
	"hash/maphash"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/taskgov/taskgov/internal/model"
)

// recMap is a persistent map from task name to record: a hash array mapped
// trie (Bagwell's HAMT) of 32-way nodes, each holding only its used slots.
// A View holds two (every live task, and the running ones); a step changes
// them through a recTxn, which copies only the nodes on the paths to what it
// writes (O(log32 n) each), so every earlier map, and so every published
// View, stays as it was. Its cost per entry is one 16-byte slot plus a share
// of its node (about 30 bytes a task at 100,000), where the radix tree it
// replaced held five allocations per task (about 420 bytes).
//
// The zero recMap is empty. Records are keyed by their Name; the map never
// changes a record.
type recMap struct {
	root *rmNode
	n    int
}

const (
	rmBits  = 5
	rmWidth = 1 << rmBits
)

// rmNode is one trie node. Below the last level of hash bits (shift >= 64),
// a node is a bucket of records whose names hash alike: bits is unused and
// its slots are leaves in no order.
type rmNode struct {
	bits  uint32   // which of the 32 hash fragments have a slot
	edit  uint64   // the recTxn that may change it in place (0: none)
	slots []rmSlot // one per set bit, in bit order
}

// rmSlot is a leaf (rec set) or a child node (sub set).
type rmSlot struct {
	rec *model.TaskRecord
	sub *rmNode
}

var (
	recSeed = maphash.MakeSeed()
	// recHash hashes a task name; tests replace it to force collisions.
	recHash = func(name string) uint64 { return maphash.String(recSeed, name) }
	// txnIDs numbers recTxns, so that a node knows the one that made it.
	txnIDs atomic.Uint64
)

// Len is how many records the map holds.
func (m recMap) Len() int { return m.n }

// Get returns the record of that name.
func (m recMap) Get(name string) (*model.TaskRecord, bool) {
	h := recHash(name)
	n := m.root
	for shift := uint(0); n != nil; shift += rmBits {
		if shift >= 64 {
			for _, s := range n.slots {
				if s.rec.Name == name {
					return s.rec, true
				}
			}
			return nil, false
		}
		i, ok := n.index(h, shift)
		if !ok {
			return nil, false
		}
		s := n.slots[i]
		if s.sub == nil {
			if s.rec.Name == name {
				return s.rec, true
			}
			return nil, false
		}
		n = s.sub
	}
	return nil, false
}

// Each calls fn with every record, in no particular order, until fn returns
// false.
func (m recMap) Each(fn func(*model.TaskRecord) bool) { m.root.each(fn) }

func (n *rmNode) each(fn func(*model.TaskRecord) bool) bool {
	if n == nil {
		return true
	}
	for _, s := range n.slots {
		if s.sub != nil {
			if !s.sub.each(fn) {
				return false
			}
		} else if !fn(s.rec) {
			return false
		}
	}
	return true
}

// index is the slot of h's fragment at shift, and whether it is in use.
func (n *rmNode) index(h uint64, shift uint) (int, bool) {
	bit := uint32(1) << ((h >> shift) & (rmWidth - 1))
	return bits.OnesCount32(n.bits & (bit - 1)), n.bits&bit != 0
}

// recTxn changes a recMap: nodes it made are changed in place, any other is
// copied first, so the map it started from never changes. Commit returns
// the result; the txn may go on after it (it then copies again).
type recTxn struct {
	root *rmNode
	n    int
	id   uint64
}

// Txn starts changing m.
func (m recMap) Txn() *recTxn { return &recTxn{root: m.root, n: m.n, id: txnIDs.Add(1)} }

// Commit returns the map as changed so far.
func (t *recTxn) Commit() recMap {
	t.id = txnIDs.Add(1) // what follows must not change the nodes now shared
	return recMap{root: t.root, n: t.n}
}

// Insert puts r under r.Name and returns the record it replaced, if any.
func (t *recTxn) Insert(r *model.TaskRecord) (old *model.TaskRecord) {
	t.root, old = t.insert(t.root, 0, recHash(r.Name), r)
	if old == nil {
		t.n++
	}
	return old
}

// Delete removes name's record and returns it (nil if there was none).
func (t *recTxn) Delete(name string) (old *model.TaskRecord) {
	t.root, old = t.delete(t.root, 0, recHash(name), name)
	if old != nil {
		t.n--
	}
	return old
}

// own returns n itself if this txn made it, else a copy it may change, with
// room for one more slot.
func (t *recTxn) own(n *rmNode) *rmNode {
	if n.edit == t.id {
		return n
	}
	slots := make([]rmSlot, len(n.slots), len(n.slots)+1)
	copy(slots, n.slots)
	return &rmNode{bits: n.bits, edit: t.id, slots: slots}
}

func (t *recTxn) insert(n *rmNode, shift uint, h uint64, r *model.TaskRecord) (*rmNode, *model.TaskRecord) {
	if n == nil {
		n = &rmNode{edit: t.id}
	}
	if shift >= 64 {
		for i, s := range n.slots {
			if s.rec.Name == r.Name {
				n = t.own(n)
				n.slots[i].rec = r
				return n, s.rec
			}
		}
		n = t.own(n)
		n.slots = append(n.slots, rmSlot{rec: r})
		return n, nil
	}
	i, ok := n.index(h, shift)
	if !ok {
		n = t.own(n)
		n.bits |= 1 << ((h >> shift) & (rmWidth - 1))
		n.slots = slices.Insert(n.slots, i, rmSlot{rec: r})
		return n, nil
	}
	s := n.slots[i]
	switch {
	case s.sub != nil:
		sub, old := t.insert(s.sub, shift+rmBits, h, r)
		if sub != s.sub {
			n = t.own(n)
			n.slots[i].sub = sub
		}
		return n, old
	case s.rec.Name == r.Name:
		n = t.own(n)
		n.slots[i].rec = r
		return n, s.rec
	default: // another name with this fragment: both move one level down
		sub, _ := t.insert(nil, shift+rmBits, recHash(s.rec.Name), s.rec)
		sub, _ = t.insert(sub, shift+rmBits, h, r)
		n = t.own(n)
		n.slots[i] = rmSlot{sub: sub}
		return n, nil
	}
}

// delete returns n without name's record (nil when nothing is left), and
// the record. A child left with a single record is replaced by that record,
// so the trie stays as shallow as its names require.
func (t *recTxn) delete(n *rmNode, shift uint, h uint64, name string) (*rmNode, *model.TaskRecord) {
	if n == nil {
		return nil, nil
	}
	i, ok := 0, false
	if shift >= 64 {
		i = slices.IndexFunc(n.slots, func(s rmSlot) bool { return s.rec.Name == name })
		ok = i >= 0
	} else {
		i, ok = n.index(h, shift)
	}
	if !ok {
		return n, nil
	}
	s := n.slots[i]
	if s.sub != nil {
		sub, old := t.delete(s.sub, shift+rmBits, h, name)
		if old == nil {
			return n, nil
		}
		n = t.own(n)
		switch {
		case sub == nil:
			n.removeSlot(i, h, shift)
		case len(sub.slots) == 1 && sub.slots[0].sub == nil:
			n.slots[i] = sub.slots[0]
		default:
			n.slots[i].sub = sub
		}
		if len(n.slots) == 0 {
			return nil, old
		}
		return n, old
	}
	if s.rec.Name != name {
		return n, nil
	}
	if len(n.slots) == 1 {
		return nil, s.rec
	}
	n = t.own(n)
	n.removeSlot(i, h, shift)
	return n, s.rec
}

// removeSlot drops slot i, which h's fragment at shift selects.
func (n *rmNode) removeSlot(i int, h uint64, shift uint) {
	n.slots = slices.Delete(n.slots, i, i+1)
	if shift < 64 {
		n.bits &^= 1 << ((h >> shift) & (rmWidth - 1))
	}
}
