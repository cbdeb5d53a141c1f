package core

import "math/bits"

// bitset is a set of node positions with lowest-first iteration.
type bitset struct{ words []uint64 }

func (b *bitset) grow(n int) {
	for len(b.words)*64 < n {
		b.words = append(b.words, 0)
	}
}
func (b *bitset) set(i int)   { b.words[i>>6] |= 1 << (uint(i) & 63) }
func (b *bitset) clear(i int) { b.words[i>>6] &^= 1 << (uint(i) & 63) }

// next returns the lowest member >= i, or -1.
func (b *bitset) next(i int) int {
	w := i >> 6
	if w >= len(b.words) {
		return -1
	}
	cur := b.words[w] >> (uint(i) & 63)
	if cur != 0 {
		return i + bits.TrailingZeros64(cur)
	}
	for w++; w < len(b.words); w++ {
		if b.words[w] != 0 {
			return w*64 + bits.TrailingZeros64(b.words[w])
		}
	}
	return -1
}

// nodeIndex buckets the schedulable nodes of one instance type by free
// "primary" units (GPUs, or whole vCPU for CPU-only types). Members are
// positions in itype.nodes, so iteration is lowest position first, which
// keeps placements independent of history and packs neighbours together.
type nodeIndex struct {
	buckets []bitset
	counts  []int
	key     []int16 // per position: current bucket, -1 when not indexed
}

func newNodeIndex(keys int) nodeIndex {
	return nodeIndex{buckets: make([]bitset, keys), counts: make([]int, keys)}
}

func (ix *nodeIndex) addPosition() {
	ix.key = append(ix.key, -1)
	for k := range ix.buckets {
		ix.buckets[k].grow(len(ix.key))
	}
}

// update moves position p to bucket k, or out of the index when k < 0.
func (ix *nodeIndex) update(p int, k int) {
	old := int(ix.key[p])
	if old == k {
		return
	}
	if old >= 0 {
		ix.buckets[old].clear(p)
		ix.counts[old]--
	}
	if k >= 0 {
		ix.buckets[k].set(p)
		ix.counts[k]++
	}
	ix.key[p] = int16(k)
}

// atLeast counts indexed nodes with key >= k.
func (ix *nodeIndex) atLeast(k int) int {
	n := 0
	for ; k < len(ix.counts); k++ {
		n += ix.counts[k]
	}
	return n
}
