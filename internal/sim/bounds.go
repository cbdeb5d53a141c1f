package sim

import (
	"container/heap"
	"math"
	"sort"
)

// work is one job's size for the bounds: arrival, GPUs × duration, and its
// own duration.
type work struct {
	arrival, size, duration float64
}

// makespanLower is a lower bound on the makespan: no job ends before its
// arrival plus its duration, and the work arriving at or after any time a
// cannot finish before a + that work / total GPUs (the fluid bound).
func makespanLower(ws []work, gpus float64) float64 {
	if len(ws) == 0 || gpus <= 0 {
		return 0
	}
	sorted := append([]work(nil), ws...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a].arrival < sorted[b].arrival })
	bound, suffix := 0.0, 0.0
	for i := len(sorted) - 1; i >= 0; i-- {
		suffix += sorted[i].size
		bound = math.Max(bound, sorted[i].arrival+suffix/gpus)
		bound = math.Max(bound, sorted[i].arrival+sorted[i].duration)
	}
	return bound
}

// srptMeanJCT is the mean completion time (minus arrival) of preemptive
// shortest-remaining-processing-time on one machine as fast as the whole
// cluster, over work = GPUs × duration: a lower bound on the mean JCT.
func srptMeanJCT(ws []work, gpus float64) float64 {
	if len(ws) == 0 || gpus <= 0 {
		return 0
	}
	sorted := append([]work(nil), ws...)
	sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].arrival < sorted[b].arrival })
	var q remHeap
	now, total := 0.0, 0.0
	i := 0
	for i < len(sorted) || q.Len() > 0 {
		if q.Len() == 0 {
			now = math.Max(now, sorted[i].arrival)
		}
		for i < len(sorted) && sorted[i].arrival <= now {
			heap.Push(&q, job2{rem: sorted[i].size / gpus, arrival: sorted[i].arrival})
			i++
		}
		top := q[0]
		nextArrival := math.Inf(1)
		if i < len(sorted) {
			nextArrival = sorted[i].arrival
		}
		if now+top.rem <= nextArrival {
			now += top.rem
			heap.Pop(&q)
			total += now - top.arrival
			continue
		}
		q[0].rem -= nextArrival - now
		now = nextArrival
		heap.Fix(&q, 0)
	}
	return total / float64(len(ws))
}

type job2 struct{ rem, arrival float64 }

type remHeap []job2

func (h remHeap) Len() int           { return len(h) }
func (h remHeap) Less(a, b int) bool { return h[a].rem < h[b].rem }
func (h remHeap) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *remHeap) Push(v any)        { *h = append(*h, v.(job2)) }
func (h *remHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
