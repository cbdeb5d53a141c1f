package sim

import (
	"sort"

	"github.com/taskgov/taskgov/internal/model"
)

// EpisodeStat is what a set of payback waits (rule 10) cost and what
// ended them (report.json's payback_episodes, Options.WaitReasons).
type EpisodeStat struct {
	Episodes int `json:"episodes"`
	// WaitedGPUSecs: the waits' GPUs × their length, from the first cycle
	// that recorded the payback reason to the cycle that ended it.
	WaitedGPUSecs float64 `json:"waited_gpu_s"`
	// PriceGPUSecs: the price the last recorded reason named, summed.
	PriceGPUSecs float64 `json:"price_gpu_s"`
	// LostGPUSecs: the work the preemptions that ended them lost, restart
	// included (as preemptions.lost_gpu_hours counts it).
	LostGPUSecs float64 `json:"lost_gpu_s"`
	// VictimGPUs: the GPUs of the tasks those preemptions took;
	// FreshVictimGPUs: of them, tasks that started after the wait began
	// (a borrower admitted while the owner waited, then taken back).
	VictimGPUs      float64 `json:"victim_gpus"`
	FreshVictimGPUs float64 `json:"fresh_victim_gpus"`
}

// Outcomes of a payback wait, as payback_episodes names them.
const (
	epPaid       = "preempted at its payback"     // at or after the time its reason gave
	epEarly      = "preempted before its payback" // a cheaper set of victims, taken before that time
	epNoTime     = "preempted, no time given"     // its reason gave no time (a borrower's price grows)
	epStarted    = "started without preempting"   // room freed on its own
	epOther      = "waits for something else"     // its reason changed while it still waits
	epUnfinished = "pending at the end"
)

// episode is one task's payback wait in progress.
type episode struct {
	key   string // reasonKey of its reason
	start float64
	gpus  float64
	last  model.WaitReason
	// victims, fresh: GPUs preempted for the task in the cycle that ends
	// the wait, and those of them started after the wait began (victim).
	victims, fresh float64
}

// paybackEpisodes follows each WaitingForPayback wait from its first cycle
// to what ended it: the task started by preempting (at the time its reason
// gave, or before it, when a cheaper set of victims was found), started
// without preempting, or came to wait for something else.
type paybackEpisodes struct {
	open map[string]*episode
	out  map[string]map[string]*EpisodeStat
}

func (p *paybackEpisodes) end(e *episode, outcome string, now, lost float64) {
	if p.out == nil {
		p.out = map[string]map[string]*EpisodeStat{}
	}
	if p.out[e.key] == nil {
		p.out[e.key] = map[string]*EpisodeStat{}
	}
	st := p.out[e.key][outcome]
	if st == nil {
		st = &EpisodeStat{}
		p.out[e.key][outcome] = st
	}
	st.Episodes++
	st.WaitedGPUSecs += e.gpus * (now - e.start)
	st.PriceGPUSecs += float64(e.last.Need)
	st.LostGPUSecs += lost
	st.VictimGPUs += e.victims
	st.FreshVictimGPUs += e.fresh
}

// victim notes v, preempted for the task named by, before the cycle's
// admissions are read (after): its GPUs, and whether it started after
// by's wait began.
func (p *paybackEpisodes) victim(by string, v *job) {
	e := p.open[by]
	if e == nil {
		return
	}
	e.victims += float64(v.gpus)
	if v.lastAdmit >= e.start {
		e.fresh += float64(v.gpus)
	}
}

// after reads a cycle at now: its admissions (with the work each one's
// victims lost, by the admitted task's name) and the queue it left.
func (p *paybackEpisodes) after(now float64, admitted map[string]bool, lostFor map[string]float64, waiting []model.Waiting, byName map[string]*job) {
	if p.open == nil {
		p.open = map[string]*episode{}
	}
	still := make(map[string]bool, len(p.open))
	for _, w := range waiting {
		e := p.open[w.Task]
		if e == nil {
			continue
		}
		if w.Reason.Code == model.WaitingForPayback && reasonKey(w.Reason) == e.key {
			e.last = w.Reason
			still[w.Task] = true
			continue
		}
		p.end(e, epOther, now, 0)
		delete(p.open, w.Task)
	}
	for _, name := range p.names(still) {
		e := p.open[name]
		outcome := epStarted
		if admitted[name] {
			lost, preempted := lostFor[name]
			switch {
			case !preempted:
			case e.last.At == 0:
				outcome = epNoTime
			case at(now).Unix() >= e.last.At:
				outcome = epPaid
			default:
				outcome = epEarly
			}
			p.end(e, outcome, now, lost)
		} else {
			p.end(e, epOther, now, 0) // cancelled or gone; none on a trace
		}
		delete(p.open, name)
	}
	for _, w := range waiting {
		if w.Reason.Code != model.WaitingForPayback || p.open[w.Task] != nil {
			continue
		}
		if j := byName[w.Task]; j != nil {
			p.open[w.Task] = &episode{key: reasonKey(w.Reason), start: now, gpus: float64(j.gpus), last: w.Reason}
		}
	}
}

// report closes the waits still open at the end.
func (p *paybackEpisodes) report(end float64) map[string]map[string]*EpisodeStat {
	for _, name := range p.names(nil) {
		p.end(p.open[name], epUnfinished, end, 0)
		delete(p.open, name)
	}
	return p.out
}

// names are the open waits' tasks not in skip, sorted: the sums are then
// added in one order, and the report is the same bit for bit.
func (p *paybackEpisodes) names(skip map[string]bool) []string {
	out := make([]string, 0, len(p.open))
	for name := range p.open {
		if !skip[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
