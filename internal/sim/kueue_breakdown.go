package sim

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// KueueBreakdown says where the baseline's evictions and waits come from:
// every eviction by the victim's class, the class of the workload it made
// room for, the reason and whether the two share a queue; how long the
// victim had run and how long before the preemptor's arrival it started;
// how often each workload was evicted; how many victims each preemption
// took; and when each class was first admitted.
type KueueBreakdown struct {
	Evictions int
	// ByKind counts evictions by "victim <- preemptor reason (same queue|other queue)".
	ByKind map[string]int
	// Ran counts evictions by victim class and how long it had run, in
	// tenths of a second.
	Ran map[string]int
	// StartedBeforeArrival counts evictions by victim class and how long
	// before the preemptor's arrival the victim started, in tenths of a
	// second ("after" when it started after the preemptor arrived).
	StartedBeforeArrival map[string]int
	// VictimQueue counts evictions by whether the victim's queue was
	// borrowing (using more than its quota) when the cycle began.
	VictimQueue map[string]int
	// TimesEvicted counts workloads by class and the times they were evicted.
	TimesEvicted map[string]int
	// VictimsPerPreemptor counts preempting workloads by how many victims
	// each took in one cycle.
	VictimsPerPreemptor map[int]int
	// FirstAdmitted counts workloads by class and the 5 s window of their
	// first admission.
	FirstAdmitted map[string]int
	// Preemptor and Readmitted count evictions by what followed them (the
	// preemptor's run, the victim's readmission), and SparedWait
	// preemptions by how long their victims had left to run
	// (kueueFollowUp).
	Preemptor, Readmitted, SparedWait map[string]int
	// Room says what used the room large work left while large workloads
	// arrived (kueueRoom).
	Room   *KueueRoom
	Report *Report
}

// kueueClassOf is the class in a baseline workload's name (cq-C-Q-class-i).
func kueueClassOf(name string) string {
	p := strings.Split(name, "-")
	if len(p) < 2 {
		return name
	}
	return p[len(p)-2]
}

// RunKueueBreakdown runs the baseline (cl and jobs from KueueBaseline) and
// breaks its evictions and admissions down.
func RunKueueBreakdown(cl model.Cluster, jobs []Job) (*KueueBreakdown, error) {
	b := &KueueBreakdown{ByKind: map[string]int{}, Ran: map[string]int{}, StartedBeforeArrival: map[string]int{},
		VictimQueue: map[string]int{}, TimesEvicted: map[string]int{}, VictimsPerPreemptor: map[int]int{}, FirstAdmitted: map[string]int{}}
	started, first, evicted := map[string]float64{}, map[string]float64{}, map[string]int{}
	var evs []kueueEviction
	admitted := map[string][]float64{}
	submit, cpu := map[string]float64{}, map[string]float64{}
	team := map[string]string{}
	for _, j := range jobs {
		submit[j.Name], team[j.Name], cpu[j.Name] = j.SubmitS, j.Team, j.VCPUPerNode*float64(j.Nodes)
	}
	quota := map[string]float64{}
	for _, t := range cl.Teams {
		for _, q := range t.Quotas {
			if q.VCPU != nil {
				quota[t.Name] += *q.VCPU
			}
		}
	}
	dur := map[string]float64{}
	for _, j := range jobs {
		dur[j.Name] = j.DurationS
	}
	// runs[team] holds the team's admitted workloads not preempted since;
	// one is still running at now if its run (no checkpoints, no restart
	// cost: the whole duration) ends after now.
	runs := map[string]map[string]bool{}
	borrowing := func(tm string, now float64) bool {
		u := 0.0
		for name := range runs[tm] {
			if roundUS(started[name]+dur[name]) > now {
				u += cpu[name]
			} else {
				delete(runs[tm], name)
			}
		}
		return u > quota[tm]+1e-9
	}
	tenths := func(s float64) int { return int(math.Round(s * 10)) }
	r, err := Run(jobs, Options{Cluster: cl, OnDecision: func(now float64, d model.Decision) {
		per := map[string]int{}
		for _, p := range d.Preemptions {
			if borrowing(p.Team, now) {
				b.VictimQueue["victim's queue borrowing (above its quota)"]++
			} else {
				b.VictimQueue["victim's queue within its quota"]++
			}
		}
		for _, p := range d.Preemptions {
			delete(runs[p.Team], p.Task)
		}
		for _, p := range d.Preemptions {
			v, f := kueueClassOf(p.Task), kueueClassOf(p.For)
			where := "other queue"
			if team[p.For] == p.Team {
				where = "same queue"
			}
			b.Evictions++
			b.ByKind[fmt.Sprintf("%s <- %s %s (%s)", v, f, p.Reason, where)]++
			b.Ran[fmt.Sprintf("%s ran %.1f s", v, float64(tenths(now-started[p.Task]))/10)]++
			if ahead := submit[p.For] - started[p.Task]; ahead >= 0 {
				b.StartedBeforeArrival[fmt.Sprintf("%s started %.1f s before the preemptor arrived", v, float64(tenths(ahead))/10)]++
			} else {
				b.StartedBeforeArrival[v+" started after the preemptor arrived"]++
			}
			evicted[p.Task]++
			per[p.For]++
			evs = append(evs, kueueEviction{at: now, victim: p.Task, forTask: p.For, ran: now - started[p.Task]})
		}
		for _, n := range per {
			b.VictimsPerPreemptor[n]++
		}
		for _, a := range d.Admissions {
			started[a.Task] = now
			admitted[a.Task] = append(admitted[a.Task], now)
			if runs[team[a.Task]] == nil {
				runs[team[a.Task]] = map[string]bool{}
			}
			runs[team[a.Task]][a.Task] = true
			if _, ok := first[a.Task]; !ok {
				first[a.Task] = now
			}
		}
	}})
	if err != nil {
		return nil, err
	}
	b.Report = r
	b.Preemptor, b.Readmitted, b.SparedWait = kueueFollowUp(evs, admitted, dur)
	b.Room = kueueRoom(evs, admitted, dur, cpu)
	for _, j := range jobs {
		c := kueueClassOf(j.Name)
		b.TimesEvicted[fmt.Sprintf("%s evicted %d times", c, evicted[j.Name])]++
		if t, ok := first[j.Name]; ok {
			w := int(t/5) * 5
			b.FirstAdmitted[fmt.Sprintf("%s first admitted in [%d, %d) s", c, w, w+5)]++
		}
	}
	return b, nil
}

// Print writes the breakdown as Markdown lists, largest counts first.
func (b *KueueBreakdown) Print(w io.Writer) {
	list := func(title string, m map[string]int) {
		fmt.Fprintf(w, "\n%s:\n", title)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(a, c int) bool {
			if m[keys[a]] != m[keys[c]] {
				return m[keys[a]] > m[keys[c]]
			}
			return keys[a] < keys[c]
		})
		for _, k := range keys {
			fmt.Fprintf(w, "- %d %s\n", m[k], k)
		}
	}
	fmt.Fprintf(w, "\n%d evictions\n", b.Evictions)
	list("Evictions by victim <- preemptor, reason", b.ByKind)
	list("Evictions by how long the victim had run", b.Ran)
	list("Evictions by when the victim started", b.StartedBeforeArrival)
	list("Evictions by the victim's queue", b.VictimQueue)
	list("Workloads by times evicted", b.TimesEvicted)
	per := map[string]int{}
	for n, c := range b.VictimsPerPreemptor {
		per[fmt.Sprintf("took %d victims", n)] = c
	}
	list("Preemptions (one workload, one cycle) by victims taken", per)
	list("Evictions by what became of the preemptor", b.Preemptor)
	list("Evictions by when the victim was admitted again", b.Readmitted)
	list("Preemptions by how long the preemptor would have waited for its victims to end (run lengths the scheduler is not told)", b.SparedWait)
	list("First admissions by class and time", b.FirstAdmitted)
	b.Room.Print(w)
	fmt.Fprintf(w, "\nSmall workloads, strict priority, fluid (see KueueStrictPriorityFluid): %.1f s to admission\n", KueueStrictPriorityFluid())
}

// KueueStrictPriorityFluid is the small workloads' mean time to admission
// in one queue served as a fluid at its 20 vCPU, large and medium work
// (higher priority) before small, small work first come first served, a
// small workload admitted when its work starts to be served. It is what
// strict priority within a queue gives small workloads when no capacity is
// left over by fragmentation: large and medium work alone (1,250 vCPU·s
// per queue, 21.7 vCPU on average while it arrives) exceed the queue's 20
// vCPU until about 62.5 s.
func KueueStrictPriorityFluid() float64 {
	const dt = 0.001
	const quota = 20.0
	var high, low []work
	for _, k := range KueueClasses {
		for i := 0; i < k.Count; i++ {
			wk := work{arrival: kueueArrival(k, i), size: k.CPU * k.DurationS}
			if k.Name == "small" {
				low = append(low, wk)
			} else {
				high = append(high, wk)
			}
		}
	}
	sort.Slice(high, func(a, c int) bool { return high[a].arrival < high[c].arrival })
	backlog, hi, lo, sum := 0.0, 0, 0, 0.0
	rest := 0.0 // work left of the small workload at the head (lo), once started
	headStarted := false
	for step := 0; lo < len(low); step++ {
		now := float64(step) * dt
		for hi < len(high) && high[hi].arrival <= now+1e-9 {
			backlog += high[hi].size
			hi++
		}
		capLeft := quota * dt
		served := math.Min(backlog, capLeft)
		backlog -= served
		capLeft -= served
		for capLeft > 1e-12 && lo < len(low) && low[lo].arrival <= now+1e-9 {
			if !headStarted {
				sum += now - low[lo].arrival
				rest, headStarted = low[lo].size, true
			}
			s := math.Min(rest, capLeft)
			rest -= s
			capLeft -= s
			if rest <= 1e-12 {
				lo++
				headStarted = false
			}
		}
	}
	return math.Round(sum/float64(len(low))*10) / 10
}
