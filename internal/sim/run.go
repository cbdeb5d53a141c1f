package sim

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"time"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/resource"
)

// Options configure a run.
type Options struct {
	Cluster model.Cluster
	Seed    int64
	// SlowdownBySpread multiplies a task's run time by the factor of its
	// spread level (index 0 to 4); missing entries mean 1.
	SlowdownBySpread []float64
	// NodeMTBFHours, if positive, fails each node at exponentially
	// distributed times (seeded); a failed node returns after RepairS.
	NodeMTBFHours float64
	RepairS       float64
	// Samples is how many timeline points the report keeps (default 200).
	Samples int
	// CheckpointOnPreempt models jobs that save a checkpoint in their
	// preemption grace period, as taskgov's signal-and-grace protocol lets
	// them: a preempted job with a checkpoint interval keeps all its progress
	// and loses only the restart cost. Without it, it falls back to its last
	// periodic checkpoint.
	CheckpointOnPreempt bool
	// FullRescan runs the core in its reference mode: every cycle evaluates
	// every pending task (core.SetFullRescan). Decisions are the same; it
	// exists to measure incremental cycles against it.
	FullRescan bool
	// OnDecision, if set, sees each cycle's decision at its virtual time
	// (seconds from the start), before the run applies it.
	OnDecision func(now float64, d model.Decision)
	// WaitReasons attributes each job's pending time to the wait reasons
	// the cycles recorded for it (jobs.csv's wait_by_reason and report.json's
	// wait_reasons_by_priority). It reads the whole queue after each cycle.
	WaitReasons bool
	// CheckEvery, if positive, runs the core's CheckInvariants after every
	// CheckEvery-th cycle and ends the run with its error. The simulator's
	// own ledger checks each placement's room on every cycle regardless.
	CheckEvery int
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return epoch.Add(time.Duration(s * float64(time.Second))) }

func secs(t time.Time) float64 { return t.Sub(epoch).Seconds() }

// job is a trace job's simulated life.
type job struct {
	Job
	pod       resource.Vector // what each pod holds on its node
	gpus      int64           // total GPUs of the gang
	cpu       float64         // total vCPU (CPU-only types)
	started   float64         // first admission, -1 before
	lastAdmit float64         // the latest admission
	finished  float64         // -1 before
	running   bool
	runID     int
	runStart  float64 // when this run's progress starts (after the restart cost)
	base      float64 // work seconds done when this run began (its resume point)
	slow      float64 // this run's slowdown
	lastCkpt  float64 // the checkpoint time told to the core
	resumes   int
	submitted bool
	reasonS   map[string]float64 // pending seconds by wait reason (Options.WaitReasons)
	queuedAt  float64            // when it last entered the queue (submitted or preempted)
	queuedS   float64            // seconds pending up to its last admission, every wait counted

	// quotaOrder is where it stood against its team's quota when it was
	// submitted (quota_order.go; Options.WaitReasons).
	quotaOrder string
}

// progress is the work done by now, in seconds of the job's duration.
func (j *job) progress(now float64) float64 {
	if !j.running || now <= j.runStart {
		return j.base
	}
	return math.Min(j.DurationS, j.base+(now-j.runStart)/j.slow)
}

// checkpointed is the resume point a preemption at now falls back to.
func (j *job) checkpointed(now float64) float64 {
	p := j.progress(now)
	if j.CheckpointIntervalS <= 0 {
		return j.base
	}
	return math.Max(j.base, math.Floor(p/j.CheckpointIntervalS)*j.CheckpointIntervalS)
}

// completion is a pending finish event.
type completion struct {
	at    float64
	name  string
	runID int
}

type completions []completion

func (c completions) Len() int { return len(c) }
func (c completions) Less(a, b int) bool {
	if c[a].at != c[b].at {
		return c[a].at < c[b].at
	}
	return c[a].name < c[b].name
}
func (c completions) Swap(a, b int) { c[a], c[b] = c[b], c[a] }
func (c *completions) Push(v any)   { *c = append(*c, v.(completion)) }
func (c *completions) Pop() any {
	old := *c
	v := old[len(old)-1]
	*c = old[:len(old)-1]
	return v
}

// failure is a node going down or coming back.
type failure struct {
	at   float64
	node string
	up   bool
}

// Run replays jobs through the scheduling core in virtual time.
func Run(jobs []Job, o Options) (*Report, error) {
	wall := time.Now()
	s, err := core.New(o.Cluster, o.Seed)
	if err != nil {
		return nil, err
	}
	s.SetLazyWaiting(true) // the count per cycle, the list once at the end
	s.SetFullRescan(o.FullRescan)
	cat := s.Catalog()
	byName := map[string]*job{}
	order := make([]*job, 0, len(jobs))
	for _, tj := range jobs {
		if _, dup := byName[tj.Name]; dup {
			return nil, fmt.Errorf("trace: job %q appears twice: %w", tj.Name, model.ErrInvalid)
		}
		it, ok := cat[tj.InstanceType]
		if !ok {
			return nil, fmt.Errorf("trace: job %s: unknown instance type %q: %w", tj.Name, tj.InstanceType, model.ErrInvalid)
		}
		j := &job{Job: tj, started: -1, finished: -1}
		// Arrivals go on the run ends' microsecond grid, so that a trace's
		// float noise (2.3999999999999995 for 2.4, as a program that wrote
		// it may print) does not put an arrival before a run end of the same
		// instant, which then ends first (roundUS).
		j.SubmitS = roundUS(tj.SubmitS)
		pod := model.PodVector(tj.spec().PerNode, it)
		j.pod = pod
		j.gpus = pod.GPUs * int64(tj.Nodes)
		j.cpu = float64(pod.MilliCPU) / 1000 * float64(tj.Nodes)
		byName[tj.Name] = j
		order = append(order, j)
	}
	sort.SliceStable(order, func(a, b int) bool { return order[a].SubmitS < order[b].SubmitS })

	m := newMeter(o, s, order)
	var reasons *reasonClock
	var episodes *paybackEpisodes
	var room *roomWhileWaiting
	var weights map[string]int
	if o.WaitReasons {
		reasons = &reasonClock{s: s, byName: byName}
		episodes = &paybackEpisodes{}
		weights = classWeights(s.Policy())
		room = &roomWhileWaiting{weights: weights}
	}
	fails := plannedFailures(o, s)
	books := newLedger(s)
	var done completions
	next := 0
	now := 0.0
	for {
		t := math.Inf(1)
		if next < len(order) {
			t = order[next].SubmitS
		}
		if len(done) > 0 {
			t = math.Min(t, done[0].at)
		}
		if len(fails) > 0 && (next < len(order) || m.active() > 0) {
			t = math.Min(t, fails[0].at)
		}
		if wake, ok := s.NextWake(); ok && m.waiting > 0 {
			if w := secs(wake); w > now {
				t = math.Min(t, w)
			}
		}
		if math.IsInf(t, 1) {
			break
		}
		m.advance(now, t)
		reasons.attribute(m.guarantee, now, t)
		reasons.advance(now, t)
		now = t
		released, submitted := false, false
		for len(done) > 0 && done[0].at <= now {
			c := heap.Pop(&done).(completion)
			j := byName[c.name]
			if j.runID != c.runID || !j.running {
				continue // preempted since
			}
			if err := s.Complete(j.Name); err != nil {
				return nil, fmt.Errorf("completing %s: %w", j.Name, err)
			}
			j.running, j.finished = false, now
			books.release(j)
			m.finish(j)
			released = true
		}
		for len(fails) > 0 && fails[0].at <= now {
			f := fails[0]
			fails = fails[1:]
			_ = s.SetNodeHealth(f.node, f.up, at(now))
			books.health(f.node, f.up)
			released = true
		}
		for next < len(order) && order[next].SubmitS <= now {
			j := order[next]
			next++
			if err := s.Submit(j.spec(), at(j.SubmitS)); err != nil {
				m.refused = append(m.refused, fmt.Sprintf("%s: %v", j.Name, err))
				continue
			}
			j.submitted = true
			j.queuedAt = j.SubmitS
			if o.WaitReasons {
				j.quotaOrder = quotaOrder(j, m.runningJobs(), m.guarantee.quotaOf(j.InstanceType, j.Team), weights)
			}
			m.submit(j)
			submitted = true
		}
		// Tell the core the checkpoints running tasks have reached, so that
		// its victim choice sees the work really at risk.
		for _, j := range m.runningJobs() {
			if j.CheckpointIntervalS <= 0 {
				continue
			}
			c := j.checkpointed(now)
			if c > j.base {
				if ct := j.runStart + (c-j.base)*j.slow; ct > j.lastCkpt {
					j.lastCkpt = ct
					_ = s.Checkpoint(j.Name, at(ct))
				}
			}
		}
		d := s.Schedule(at(now))
		if o.OnDecision != nil {
			o.OnDecision(now, d)
		}
		m.decisions++
		m.causes.note(released, submitted, s.TasksTried()-m.tasksTried, len(d.Admissions)+len(d.Preemptions) > 0)
		m.tasksTried = s.TasksTried()
		var lostFor map[string]float64 // work lost to each admitted task's preemptions (episodes)
		if episodes != nil && len(d.Preemptions) > 0 {
			lostFor = map[string]float64{}
		}
		for _, p := range d.Preemptions {
			j := byName[p.Task]
			if j == nil || !j.running {
				continue
			}
			resume := j.checkpointed(now)
			if o.CheckpointOnPreempt && j.CheckpointIntervalS > 0 {
				resume = j.progress(now)
			}
			lost := (j.progress(now) - resume) * float64(j.gpus)
			m.preempt(j, p.Reason, lost+float64(j.gpus)*restartCost(s))
			if lostFor != nil {
				lostFor[p.For] += lost + float64(j.gpus)*restartCost(s)
				episodes.victim(p.For, j)
			}
			j.running, j.base = false, resume
			books.release(j)
			j.resumes++
			j.queuedAt = now
		}
		for _, a := range d.Admissions {
			j := byName[a.Task]
			if err := books.admit(j, a.Pods); err != nil {
				return nil, fmt.Errorf("%w (cycle at %.6f s)", err, now)
			}
			j.running = true
			j.runID++
			if j.started < 0 {
				j.started = now
				m.start(j)
			}
			j.lastAdmit = now
			j.queuedS += now - j.queuedAt
			j.slow = slowdown(o.SlowdownBySpread, a.Spread)
			j.runStart = now
			if j.resumes > 0 {
				j.runStart += restartCost(s)
			}
			j.lastCkpt = 0
			m.admit(j, a)
			heap.Push(&done, completion{at: roundUS(j.runStart + (j.DurationS-j.base)*j.slow), name: j.Name, runID: j.runID})
		}
		if o.CheckEvery > 0 && m.decisions%o.CheckEvery == 0 {
			if err := s.CheckInvariants(); err != nil {
				return nil, fmt.Errorf("sim: the core's invariants fail after the cycle at %.6f s: %w", now, err)
			}
		}
		m.waiting = s.Pending()
		m.sample(now)
		reasons.after()
		if episodes != nil {
			admitted := make(map[string]bool, len(d.Admissions))
			for _, a := range d.Admissions {
				admitted[a.Task] = true
			}
			episodes.after(now, admitted, lostFor, reasons.last, byName)
			room.after(d.Admissions, reasons.last, byName)
		}
	}
	r := m.report(order, time.Since(wall).Seconds())
	if o.WaitReasons {
		r.WaitReasons = reasonsByClass(order)
		r.Fairness.GuaranteeWhy = &reasons.why
		r.PaybackEpisodes = episodes.report(now)
		r.WaitByQuotaOrder = waitByQuotaOrder(order)
		r.RoomWhileWaiting = room.out
	}
	for _, w := range s.Waiting() {
		r.Unfinished = append(r.Unfinished, Unfinished{Task: w.Task, Team: w.Team, Reason: string(w.Reason.Code), Why: w.Reason.Message()})
	}
	return r, nil
}

// roundUS rounds a virtual time to the microsecond, so that a run that ends
// when another event happens (a start plus a duration, each exact in
// decimal) ends at that event's time and not a float's rounding after it.
func roundUS(s float64) float64 { return math.Round(s*1e6) / 1e6 }

func restartCost(s *core.Scheduler) float64 { return float64(*s.Policy().RestartCostSeconds) }

func slowdown(f []float64, spread int) float64 {
	if spread >= 0 && spread < len(f) && f[spread] > 0 {
		return f[spread]
	}
	return 1
}

// plannedFailures draws node failures and repairs from the seed.
func plannedFailures(o Options, s *core.Scheduler) []failure {
	if o.NodeMTBFHours <= 0 {
		return nil
	}
	r := rand.New(rand.NewSource(o.Seed + 7919))
	repair := o.RepairS
	if repair <= 0 {
		repair = 3600
	}
	var out []failure
	horizon := 30 * 24 * 3600.0
	for _, n := range s.Nodes() {
		for t := r.ExpFloat64() * o.NodeMTBFHours * 3600; t < horizon; t += repair + r.ExpFloat64()*o.NodeMTBFHours*3600 {
			out = append(out, failure{at: t, node: n.Spec.Name}, failure{at: t + repair, node: n.Spec.Name, up: true})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].at < out[b].at })
	return out
}
