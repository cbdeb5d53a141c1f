package sim

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// KueueRoom accounts for the room large work leaves while large workloads
// arrive: from the first large arrival to the last (FromS, ToS), the
// cohorts' capacity less what large runs used (RoomVCPUS, vCPU·s), and
// what used it. Every run of a medium or small workload is one kind:
//   - "evicted": it ended in an eviction;
//   - "rerun": it ran to its end, and its workload had been evicted before
//     (under preemption Immediate it was then spared from priority, rule 10);
//   - "fresh": it ran to its end, and its workload had never been evicted.
//
// VCPUS (vCPU·s inside the window) and Runs (runs that overlap it) are
// keyed "class kind"; IdleVCPUS is the room no run used. In the baseline a
// large workload needs its queue's whole quota and its six queues' large
// workloads arrive together, so, with preemption at once, medium or small
// work in a queue's quota when its large workload arrives is evicted
// unless that large workload waits for spared work: the figures show how
// much room each eviction bought (docs/BENCHMARKS.md, "The floor under
// preemption at once").
type KueueRoom struct {
	FromS, ToS float64
	RoomVCPUS  float64
	IdleVCPUS  float64
	VCPUS      map[string]float64
	Runs       map[string]int
}

// kueueRoom computes KueueRoom from the evictions, each workload's
// admission times (in order), run lengths and vCPU. A run starts at an
// admission and ends at the workload's first eviction after it or, without
// one, when its duration has passed.
func kueueRoom(evs []kueueEviction, admitted map[string][]float64, dur, cpu map[string]float64) *KueueRoom {
	var large KueueClass
	for _, k := range KueueClasses {
		if k.Name == "large" {
			large = k
		}
	}
	r := &KueueRoom{FromS: kueueArrival(large, 0), ToS: kueueArrival(large, large.Count-1), VCPUS: map[string]float64{}, Runs: map[string]int{}}
	evictedAt := map[string][]float64{}
	for _, e := range evs {
		evictedAt[e.victim] = append(evictedAt[e.victim], e.at)
	}
	for _, ts := range evictedAt {
		sort.Float64s(ts)
	}
	r.RoomVCPUS = float64(KueueCohorts*KueueQueuesByCohort) * 20 * (r.ToS - r.FromS)
	used := 0.0
	for name, starts := range admitted {
		class := kueueClassOf(name)
		evictions := 0
		for _, s := range starts {
			end, kind := roundUS(s+dur[name]), "fresh"
			for _, e := range evictedAt[name] {
				if e > s && e < end {
					end, kind = e, "evicted"
					break
				}
			}
			if kind == "fresh" && evictions > 0 {
				kind = "rerun"
			}
			if kind == "evicted" {
				evictions++
			}
			in := math.Min(end, r.ToS) - math.Max(s, r.FromS)
			if in <= 0 {
				continue
			}
			if class == "large" {
				r.RoomVCPUS -= cpu[name] * in
				continue
			}
			key := fmt.Sprintf("%s %s", class, kind)
			r.VCPUS[key] += cpu[name] * in
			r.Runs[key]++
			used += cpu[name] * in
		}
	}
	r.IdleVCPUS = r.RoomVCPUS - used
	return r
}

// Print writes the accounting as a Markdown list.
func (r *KueueRoom) Print(w io.Writer) {
	fmt.Fprintf(w, "\nRoom large work left while large workloads arrived (%.1f-%.1f s), all cohorts: %.0f vCPU·s\n", r.FromS, r.ToS, r.RoomVCPUS)
	keys := make([]string, 0, len(r.VCPUS))
	for k := range r.VCPUS {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, c int) bool {
		if r.VCPUS[keys[a]] != r.VCPUS[keys[c]] {
			return r.VCPUS[keys[a]] > r.VCPUS[keys[c]]
		}
		return keys[a] < keys[c]
	})
	for _, k := range keys {
		fmt.Fprintf(w, "- %.0f vCPU·s: %s runs (%d)\n", r.VCPUS[k], k, r.Runs[k])
	}
	fmt.Fprintf(w, "- %.0f vCPU·s: idle\n", r.IdleVCPUS)
	for _, kind := range []string{"evicted", "rerun", "fresh"} {
		v, n := r.Kind(kind)
		fmt.Fprintf(w, "- all %s runs: %.0f vCPU·s (%d)\n", kind, v, n)
	}
}

// Kind sums the room used by runs of one kind (evicted, rerun, fresh) over
// the classes, and counts those runs.
func (r *KueueRoom) Kind(kind string) (vcpuS float64, runs int) {
	for k, v := range r.VCPUS {
		if strings.HasSuffix(k, " "+kind) {
			vcpuS += v
			runs += r.Runs[k]
		}
	}
	return vcpuS, runs
}
