package kube

import (
	"math"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// The API server cannot seek in a pod's log by bytes, but it can send the
// lines stamped at or after a second (sinceTime), each after its stamp
// (timestamps). A logIndex remembers, per pod, marks that tie a byte of
// the log to a stamp, so a read at an offset past a mark asks only for the
// lines from the mark's second on (podLogs.feedStamped), and the size of a
// finished pod's log, so a read past it asks nothing of that pod. It lives
// as long as the executor (a restarted server learns again, at the cost of
// one read from the log's start) and holds at most maxIndexedPods pods of
// at most maxMarksPerPod marks each.
type logIndex struct {
	mu    sync.Mutex
	pods  map[types.UID]*podIndex
	clock uint64 // counts lookups, to evict the pod used least recently
}

// logMark places a line of a pod's log: the line that starts at byte off
// of the pod's log (its own bytes, stamps left out) is the first stamped
// at or after at (the runtime's stamps do not go back), and the first k
// bytes of it have the checksum sum (k is at most markHead).
type logMark struct {
	off int64
	at  time.Time
	k   int
	sum uint32
}

// podIndex is what a logIndex knows of one pod's log.
type podIndex struct {
	marks []logMark // by off
	size  int64     // the log's size once the pod has finished; -1 before
	used  uint64
}

const (
	maxIndexedPods = 1024
	maxMarksPerPod = 64
	// markStride spaces the marks a read leaves behind it (besides its
	// last), for reads at earlier offsets.
	markStride = 1 << 20
	// markHead is how many bytes of its line a mark checks.
	markHead = 64
)

func newLogIndex() *logIndex { return &logIndex{pods: map[types.UID]*podIndex{}} }

// pod returns uid's entry, made when create is true; x.mu is held.
func (x *logIndex) pod(uid types.UID, create bool) *podIndex {
	x.clock++
	p := x.pods[uid]
	if p == nil && create {
		if len(x.pods) >= maxIndexedPods {
			x.evict()
		}
		p = &podIndex{size: -1}
		x.pods[uid] = p
	}
	if p != nil {
		p.used = x.clock
	}
	return p
}

// evict drops the pod used least recently; x.mu is held.
func (x *logIndex) evict() {
	var oldest types.UID
	var at uint64
	for uid, p := range x.pods {
		if oldest == "" || p.used < at || (p.used == at && uid < oldest) {
			oldest, at = uid, p.used
		}
	}
	delete(x.pods, oldest)
}

// mark returns the mark of uid's log nearest at or before off, or the
// zero mark (the log's start) when there is none.
func (x *logIndex) mark(uid types.UID, off int64) logMark {
	if x == nil {
		return logMark{}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	best := logMark{}
	if p := x.pod(uid, false); p != nil {
		for _, m := range p.marks {
			if m.off > off {
				break
			}
			best = m
		}
	}
	return best
}

// add records marks of uid's log. When the pod has more than
// maxMarksPerPod, one goes (thinnest), so the rest stay spread over the
// log, the newest always kept.
func (x *logIndex) add(uid types.UID, marks ...logMark) {
	if x == nil || len(marks) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	p := x.pod(uid, true)
	for _, m := range marks {
		i := 0
		for i < len(p.marks) && p.marks[i].off < m.off {
			i++
		}
		if i < len(p.marks) && p.marks[i].off == m.off {
			p.marks[i] = m
			continue
		}
		p.marks = append(p.marks[:i], append([]logMark{m}, p.marks[i:]...)...)
		if len(p.marks) > maxMarksPerPod {
			i := thinnest(p.marks)
			p.marks = slices.Delete(p.marks, i, i+1)
		}
	}
}

// thinnest is the mark whose loss leaves the smallest gap between its
// neighbours (the log's start before the first), the later of equals;
// never the last (following a log reads on from there).
func thinnest(marks []logMark) int {
	drop, gap := 0, int64(math.MaxInt64)
	for i := 0; i < len(marks)-1; i++ {
		before := int64(0)
		if i > 0 {
			before = marks[i-1].off
		}
		if g := marks[i+1].off - before; g <= gap {
			drop, gap = i, g
		}
	}
	return drop
}

// forget drops uid's marks: the log does not match one of them (its stamps
// went back, or the log was replaced), so reads of it start at its start.
func (x *logIndex) forget(uid types.UID) {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if p := x.pod(uid, false); p != nil {
		p.marks = nil
	}
}

// setSize records the size of a finished pod's log.
func (x *logIndex) setSize(uid types.UID, size int64) {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.pod(uid, true).size = size
}

// size returns the size of a finished pod's log, or -1.
func (x *logIndex) size(uid types.UID) int64 {
	if x == nil {
		return -1
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if p := x.pod(uid, false); p != nil {
		return p.size
	}
	return -1
}
