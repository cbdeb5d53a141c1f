package sim

import (
	"fmt"
	"math"
	"sort"
)

// kueueEviction is one eviction the breakdown saw: when, whom, for whom,
// and how long the victim had run.
type kueueEviction struct {
	at              float64
	victim, forTask string
	ran             float64
}

// kueueFollowUp says what followed the baseline's evictions, from the
// simulator's knowledge of every run's length (the scheduler has none):
//   - Preemptor, per eviction: whether the preemptor itself was evicted
//     before its run ended (its victims lost their work for a run that was
//     thrown away too).
//   - Readmitted, per eviction: how soon the victim was admitted again, and
//     whether that was before its preemptor's run ended (a bounce).
//   - SparedWait, per preemption (one preemptor, one cycle): how long the
//     preemptor would have waited had it let its victims run to their end
//     instead, the longest remaining run among them. It is what preempting
//     at once bought the preemptor, as far as those victims go (other room
//     might have freed sooner).
//
// admitted lists each workload's admission times in order; dur is each
// workload's run length.
func kueueFollowUp(evs []kueueEviction, admitted map[string][]float64, dur map[string]float64) (preemptor, readmitted, sparedWait map[string]int) {
	preemptor, readmitted, sparedWait = map[string]int{}, map[string]int{}, map[string]int{}
	tenths := func(s float64) float64 { return math.Round(s*10) / 10 }
	evictedAt := map[string][]float64{}
	for _, e := range evs {
		evictedAt[e.victim] = append(evictedAt[e.victim], e.at)
	}
	// after returns the first time in ts (sorted) after t, or -1.
	after := func(ts []float64, t float64) float64 {
		k := sort.Search(len(ts), func(i int) bool { return ts[i] > t+1e-9 })
		if k == len(ts) {
			return -1
		}
		return ts[k]
	}
	type cycle struct {
		at   float64
		task string
	}
	longest := map[cycle]float64{}
	for _, e := range evs {
		end := roundUS(e.at + dur[e.forTask]) // the preemptor's run, if not cut short
		if x := after(evictedAt[e.forTask], e.at); x >= 0 && x < end {
			preemptor["preemptor itself evicted before its run ended"]++
			end = x
		} else {
			preemptor["preemptor ran to its end"]++
		}
		switch back := after(admitted[e.victim], e.at); {
		case back < 0:
			readmitted["victim never admitted again"]++
		case back < end-1e-9:
			readmitted[fmt.Sprintf("victim admitted again %.1f s later, before its preemptor ended", tenths(back-e.at))]++
		default:
			readmitted[fmt.Sprintf("victim admitted again %.1f s later", tenths(back-e.at))]++
		}
		c := cycle{e.at, e.forTask}
		longest[c] = math.Max(longest[c], dur[e.victim]-e.ran)
	}
	for _, w := range longest {
		sparedWait[fmt.Sprintf("its victims would have ended %.1f s later", tenths(w))]++
	}
	return preemptor, readmitted, sparedWait
}
