package sim

import (
	"math"
	"sort"
	"strconv"

	"github.com/taskgov/taskgov/internal/model"
)

// Report is report.json. Keep the keys: the dashboard and the comparisons
// read them.
type Report struct {
	Tasks struct {
		Submitted int `json:"submitted"`
		Completed int `json:"completed"`
		Refused   int `json:"refused"`
	} `json:"tasks"`
	// Utilization: gpu_allocated_mean counts every allocated GPU-second,
	// rework after preemptions and restart time included; useful_mean counts
	// the trace's own work only; upper_bound is the fluid bound, the useful
	// utilisation of a schedule that ends at the makespan lower bound.
	Utilization struct {
		GPUAllocatedMean float64 `json:"gpu_allocated_mean"`
		UsefulMean       float64 `json:"useful_mean"`
		UpperBound       float64 `json:"upper_bound"`
		CPUAllocatedMean float64 `json:"cpu_allocated_mean"`
	} `json:"utilization"`
	MakespanS float64 `json:"makespan_s"`
	Bounds    struct {
		MakespanLowerS float64 `json:"makespan_lower_s"`
		JCTMeanLowerS  float64 `json:"jct_mean_lower_s"`
	} `json:"bounds"`
	JCT  Stats `json:"jct"`
	Wait Waits `json:"wait"`
	// WaitLast: to the last admission (Kueue's definition), for like with like.
	WaitLast Waits `json:"wait_last_admission"`
	// WaitQueued: every wait of a job added up (its first, and each after a
	// preemption or a node failure), up to its last admission: the time it
	// spent queued, which neither definition above counts alone (the first
	// leaves out a victim's waits to run again, the last counts the runs
	// between them as waiting).
	WaitQueued  Waits `json:"wait_queued_total"`
	Preemptions struct {
		Count        int                     `json:"count"`
		LostGPUHours float64                 `json:"lost_gpu_hours"`
		ByReason     map[string]*preemptStat `json:"by_reason"`
		// MaxPerJob and Jobs10OrMore show victim bouncing: the most times
		// one job was stopped, and how many jobs were stopped 10 times or
		// more.
		MaxPerJob    int `json:"max_per_job"`
		Jobs10OrMore int `json:"jobs_10_or_more"`
	} `json:"preemptions"`
	Fairness struct {
		JainWeighted              float64 `json:"jain_weighted"`
		GuaranteeViolationGPUSecs float64 `json:"guarantee_violation_gpu_s"`
		QuotaShortfallGPUSecs     float64 `json:"quota_shortfall_gpu_s"`
		// GuaranteeWhy splits the violation by the waiting tasks' reasons
		// (only with Options.WaitReasons; guarantee_why.go).
		GuaranteeWhy *GuaranteeWhy `json:"guarantee_violation_by,omitempty"`
	} `json:"fairness"`
	Topology struct {
		LevelFractions      map[string]float64 `json:"level_fractions"`
		LocalityOptimality  float64            `json:"locality_optimality"`
		MultiNodePlacements int                `json:"multi_node_placements"`
	} `json:"topology"`
	Scheduler struct {
		Decisions int `json:"decisions"`
		// TasksTried: pending tasks tried over all cycles (a cycle tries
		// the pending tasks of the instance types it evaluates, or only
		// newly queued ones when their type was settled), the work that
		// grows with the backlog.
		TasksTried uint64  `json:"tasks_tried"`
		WallS      float64 `json:"wall_s"`
		// Causes: the cycles by what set them off (cycles.go).
		Causes []CycleCause `json:"causes"`
	} `json:"scheduler"`
	// Teams has per-team usage as Kueue's recorder defines it (used vCPU
	// integral ÷ (quota × time from first to last event)), for the Kueue
	// baseline comparison.
	Teams    map[string]TeamStats `json:"teams"`
	Timeline []Sample             `json:"timeline"`
	Refused  []string             `json:"refused,omitempty"`
	// Unfinished lists the tasks still waiting when no event was left, and why.
	Unfinished []Unfinished `json:"unfinished,omitempty"`
	// WaitReasons is each class's pending time by wait reason, seconds per
	// job of the class (only with Options.WaitReasons).
	WaitReasons map[string]map[string]float64 `json:"wait_reasons_by_priority,omitempty"`
	// PaybackEpisodes: rule 10's payback waits by kind (the wait reason)
	// and by what ended them (only with Options.WaitReasons;
	// payback_episodes.go).
	PaybackEpisodes map[string]map[string]*EpisodeStat `json:"payback_episodes,omitempty"`
	// WaitByQuotaOrder: each class's first waits by where the job stood
	// against its team's quota at submission (only with
	// Options.WaitReasons; quota_order.go).
	WaitByQuotaOrder map[string]map[string]*QuotaOrderStat `json:"wait_by_quota_order,omitempty"`
	// RoomWhileWaiting: the GPUs admitted on a reclaim payback waiter's or
	// a class-order borrower's instance type while it waited, by who took
	// them (only with Options.WaitReasons; room_while_waiting.go).
	RoomWhileWaiting map[string]*RoomStat `json:"room_while_waiting,omitempty"`
	// Jobs is each job's outcome (jobs.csv, not report.json).
	Jobs []Outcome `json:"-"`
}

// Unfinished is a task the run could never admit.
type Unfinished struct {
	Task   string `json:"task"`
	Team   string `json:"team"`
	Reason string `json:"reason"`
	Why    string `json:"why"`
}

// Stats summarises durations.
type Stats struct {
	MeanS float64 `json:"mean_s"`
	P50S  float64 `json:"p50_s"`
	P99S  float64 `json:"p99_s"`
	N     int     `json:"n"`
}

// Waits are time-to-admission statistics: Report.Wait to the first
// admission, Report.WaitLast to the last (Kueue's recorder's definition: a
// preempted task counts its readmission).
type Waits struct {
	Stats
	ByTeam     map[string]Stats `json:"by_team"`
	ByPriority map[string]Stats `json:"by_priority"`
}

// waitSamples collects one kind of wait, overall, by team and by class.
type waitSamples struct {
	all            []float64
	byTeam, byPrio map[string][]float64
}

func newWaitSamples() *waitSamples {
	return &waitSamples{byTeam: map[string][]float64{}, byPrio: map[string][]float64{}}
}

func (w *waitSamples) add(team, prio string, s float64) {
	w.all = append(w.all, s)
	w.byTeam[team] = append(w.byTeam[team], s)
	w.byPrio[prio] = append(w.byPrio[prio], s)
}

func (w *waitSamples) waits() Waits {
	out := Waits{Stats: stats(w.all), ByTeam: map[string]Stats{}, ByPriority: map[string]Stats{}}
	for k, v := range w.byTeam {
		out.ByTeam[k] = stats(v)
	}
	for k, v := range w.byPrio {
		out.ByPriority[k] = stats(v)
	}
	return out
}

// TeamStats are one team's figures.
type TeamStats struct {
	CPUUsage float64 `json:"cpu_usage_kueue"`
}

func stats(xs []float64) Stats {
	if len(xs) == 0 {
		return Stats{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	pick := func(q float64) float64 { return s[int(math.Min(float64(len(s)-1), math.Floor(q*float64(len(s)))))] }
	return Stats{MeanS: sum / float64(len(s)), P50S: pick(0.5), P99S: pick(0.99), N: len(s)}
}

func (m *meter) report(jobs []*job, wall float64) *Report {
	r := &Report{}
	var jct []float64
	first, last, queued := newWaitSamples(), newWaitSamples(), newWaitSamples()
	var ws []work
	makespan := 0.0
	for _, j := range jobs {
		if !j.submitted {
			continue
		}
		r.Tasks.Submitted++
		r.Preemptions.MaxPerJob = max(r.Preemptions.MaxPerJob, j.resumes)
		if j.resumes >= 10 {
			r.Preemptions.Jobs10OrMore++
		}
		ws = append(ws, work{arrival: j.SubmitS, size: float64(j.gpus) * j.DurationS, duration: j.DurationS})
		if j.started >= 0 {
			prio := j.Priority
			if prio == "" {
				prio = "(none)"
			}
			first.add(j.Team, prio, j.started-j.SubmitS)
			last.add(j.Team, prio, j.lastAdmit-j.SubmitS)
			queued.add(j.Team, prio, j.queuedS)
		}
		if j.finished >= 0 {
			r.Tasks.Completed++
			jct = append(jct, j.finished-j.SubmitS)
			makespan = math.Max(makespan, j.finished)
		}
	}
	r.Tasks.Refused = len(m.refused)
	r.Refused = m.refused
	r.MakespanS = makespan
	r.Bounds.MakespanLowerS = makespanLower(ws, m.totalGPUs)
	if makespan > 0 && m.totalGPUs > 0 {
		r.Utilization.GPUAllocatedMean = m.gpuArea / (m.totalGPUs * makespan)
		total, done := 0.0, 0.0
		for _, j := range jobs {
			if j.submitted {
				total += float64(j.gpus) * j.DurationS
				if j.finished >= 0 {
					done += float64(j.gpus) * j.DurationS
				}
			}
		}
		r.Utilization.UsefulMean = done / (m.totalGPUs * makespan)
		if r.Bounds.MakespanLowerS > 0 {
			r.Utilization.UpperBound = math.Min(1, total/(m.totalGPUs*r.Bounds.MakespanLowerS))
		}
	}
	if makespan > 0 && m.totalCPU > 0 {
		r.Utilization.CPUAllocatedMean = m.cpuArea / (m.totalCPU * makespan)
	}
	r.Bounds.JCTMeanLowerS = srptMeanJCT(ws, m.totalGPUs)
	r.Jobs = outcomes(jobs)
	r.JCT = stats(jct)
	r.Wait, r.WaitLast, r.WaitQueued = first.waits(), last.waits(), queued.waits()
	r.Preemptions.ByReason = map[string]*preemptStat{}
	reasons := make([]string, 0, len(m.preempts))
	for reason := range m.preempts {
		reasons = append(reasons, string(reason))
	}
	sort.Strings(reasons) // a fixed order keeps the float sums bit-for-bit stable
	for _, reason := range reasons {
		ps := m.preempts[model.PreemptReason(reason)]
		r.Preemptions.ByReason[reason] = ps
		r.Preemptions.Count += ps.Count
		r.Preemptions.LostGPUHours += ps.LostGPUHours
	}
	if m.jainTime > 0 {
		r.Fairness.JainWeighted = m.jainArea / m.jainTime
	}
	r.Fairness.GuaranteeViolationGPUSecs = m.violation
	r.Fairness.QuotaShortfallGPUSecs = m.shortfall
	r.Topology.LevelFractions = map[string]float64{}
	r.Topology.MultiNodePlacements = m.multi
	if m.multi > 0 {
		for lvl, n := range m.spreads {
			r.Topology.LevelFractions[strconv.Itoa(lvl)] = float64(n) / float64(m.multi)
		}
		r.Topology.LocalityOptimality = float64(m.optimal) / float64(m.multi)
	}
	r.Scheduler.Decisions, r.Scheduler.TasksTried = m.decisions, m.tasksTried
	r.Scheduler.WallS = wall
	r.Scheduler.Causes = m.causes.list()
	r.Teams = map[string]TeamStats{}
	for name, tm := range m.teams {
		if span := tm.last - tm.first; span > 0 && tm.quotaCPU > 0 {
			r.Teams[name] = TeamStats{CPUUsage: tm.cpuArea / (tm.quotaCPU * span)}
		}
	}
	r.Timeline = m.timeline
	return r
}
