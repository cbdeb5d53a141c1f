package sim

import (
	"math"
	"sort"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/model"
)

// meter integrates the run's measures over virtual time.
type meter struct {
	totalGPUs  float64
	totalCPU   float64
	teams      map[string]*teamMeter
	teamOrder  []string
	running    map[string]*job
	pending    int
	waiting    int
	decisions  int
	tasksTried uint64
	causes     cycleCauses
	refused    []string

	allocGPUs float64 // GPUs running now
	allocCPU  float64
	gpuArea   float64 // ∫ allocated GPUs dt
	cpuArea   float64
	jainArea  float64 // ∫ Jain index dt, over time with demand
	jainTime  float64
	violation float64 // GPU-seconds of guarantees not honoured (guarantee.go)
	shortfall float64 // GPU-seconds of min(demand, quota) − allocation, per team
	guarantee *guaranteeMeter

	preempts map[model.PreemptReason]*preemptStat
	spreads  map[int]int
	optimal  int
	multi    int

	samples  int
	timeline []Sample
	lastS    float64
	every    float64
}

type teamMeter struct {
	weight             float64
	quota              float64 // GPUs over all types
	alloc, demand      float64 // GPUs
	allocCPU, quotaCPU float64
	cpuArea            float64
	first, last        float64 // first and last event, for Kueue's usage
}

type preemptStat struct {
	Count        int     `json:"count"`
	LostGPUHours float64 `json:"lost_gpu_hours"`
}

// Sample is one timeline point of the report.
type Sample struct {
	T         float64            `json:"t"`
	Allocated float64            `json:"gpus_allocated"`
	Pending   int                `json:"pending"`
	ByTeam    map[string]float64 `json:"by_team"`
}

func newMeter(o Options, s *core.Scheduler, jobs []*job) *meter {
	m := &meter{teams: map[string]*teamMeter{}, running: map[string]*job{}, preempts: map[model.PreemptReason]*preemptStat{},
		spreads: map[int]int{}, samples: o.Samples, guarantee: newGuaranteeMeter()}
	if m.samples <= 0 {
		m.samples = 200
	}
	for _, n := range s.Nodes() {
		m.totalGPUs += float64(n.GPUs)
		m.totalCPU += s.Catalog()[n.Spec.InstanceType].VCPU
		m.guarantee.addCapacity(n.Spec.InstanceType, float64(n.GPUs))
	}
	for _, t := range s.Teams() {
		tm := &teamMeter{weight: float64(*t.FairShareWeight), first: -1}
		for _, q := range t.Quotas {
			v := model.QuotaVector(q, s.Catalog()[q.InstanceType])
			tm.quota += float64(v.GPUs)
			m.guarantee.addQuota(q.InstanceType, t.Name, float64(v.GPUs))
			tm.quotaCPU += float64(v.MilliCPU) / 1000
		}
		m.teams[t.Name] = tm
		m.teamOrder = append(m.teamOrder, t.Name)
	}
	if len(jobs) > 0 {
		span := jobs[len(jobs)-1].SubmitS + 1
		m.every = span / float64(m.samples)
	}
	return m
}

func (m *meter) active() int { return m.pending + len(m.running) }

func (m *meter) runningJobs() map[string]*job { return m.running }

func (m *meter) touch(team string, now float64) {
	if tm := m.teams[team]; tm != nil {
		if tm.first < 0 {
			tm.first = now
		}
		tm.last = now
	}
}

func (m *meter) submit(j *job) {
	m.pending++
	m.guarantee.pend(j.InstanceType, j.Team, float64(j.gpus), 1)
	if tm := m.teams[j.Team]; tm != nil {
		tm.demand += float64(j.gpus)
	}
	m.touch(j.Team, j.SubmitS)
}

func (m *meter) start(j *job) {}

func (m *meter) admit(j *job, a model.Admission) {
	m.pending--
	m.guarantee.pend(j.InstanceType, j.Team, float64(j.gpus), -1)
	m.guarantee.run(j.InstanceType, j.Team, float64(j.gpus))
	m.running[j.Name] = j
	m.allocGPUs += float64(j.gpus)
	m.allocCPU += j.cpu
	if tm := m.teams[j.Team]; tm != nil {
		tm.alloc += float64(j.gpus)
		tm.allocCPU += j.cpu
	}
	if len(a.Pods) > 1 && a.Spread >= 0 {
		m.multi++
		m.spreads[a.Spread]++
		if a.Spread == a.BestSpread {
			m.optimal++
		}
	}
	m.touch(j.Team, j.runStart)
}

func (m *meter) stopRunning(j *job) {
	delete(m.running, j.Name)
	m.guarantee.run(j.InstanceType, j.Team, -float64(j.gpus))
	m.allocGPUs -= float64(j.gpus)
	m.allocCPU -= j.cpu
	if tm := m.teams[j.Team]; tm != nil {
		tm.alloc -= float64(j.gpus)
		tm.allocCPU -= j.cpu
	}
}

func (m *meter) finish(j *job) {
	m.stopRunning(j)
	if tm := m.teams[j.Team]; tm != nil {
		tm.demand -= float64(j.gpus)
	}
	m.touch(j.Team, j.finished)
}

func (m *meter) preempt(j *job, reason model.PreemptReason, lostGPUSeconds float64) {
	m.stopRunning(j)
	m.pending++
	m.guarantee.pend(j.InstanceType, j.Team, float64(j.gpus), 1)
	ps := m.preempts[reason]
	if ps == nil {
		ps = &preemptStat{}
		m.preempts[reason] = ps
	}
	ps.Count++
	ps.LostGPUHours += lostGPUSeconds / 3600
}

// advance integrates every measure over [from, to).
func (m *meter) advance(from, to float64) {
	dt := to - from
	if dt <= 0 {
		return
	}
	m.gpuArea += m.allocGPUs * dt
	m.cpuArea += m.allocCPU * dt
	m.violation += m.guarantee.violated() * dt
	for _, name := range m.teamOrder {
		tm := m.teams[name]
		tm.cpuArea += tm.allocCPU * dt
		if tm.demand > 0 {
			if short := math.Min(tm.demand, tm.quota) - tm.alloc; short > 0 {
				m.shortfall += short * dt
			}
		}
	}
	if j, ok := m.jain(); ok {
		m.jainArea += j * dt
		m.jainTime += dt
	}
}

// jain is Jain's index over each team's allocation divided by its weighted
// fair share, capped by demand (water-filling the cluster's GPUs by weight).
func (m *meter) jain() (float64, bool) {
	type claim struct {
		name         string
		weight, cap  float64
		share, alloc float64
	}
	var cs []*claim
	for _, name := range m.teamOrder {
		tm := m.teams[name]
		if tm.demand > 0 && tm.weight > 0 {
			cs = append(cs, &claim{name: name, weight: tm.weight, cap: tm.demand, alloc: tm.alloc})
		}
	}
	if len(cs) == 0 || m.totalGPUs == 0 {
		return 0, false
	}
	left := m.totalGPUs
	open := append([]*claim(nil), cs...)
	for len(open) > 0 && left > 1e-9 {
		wsum := 0.0
		for _, c := range open {
			wsum += c.weight
		}
		// The claim that saturates first at this fill rate.
		sort.SliceStable(open, func(a, b int) bool {
			return (open[a].cap-open[a].share)/open[a].weight < (open[b].cap-open[b].share)/open[b].weight
		})
		c0 := open[0]
		step := math.Min((c0.cap-c0.share)/c0.weight, left/wsum)
		for _, c := range open {
			c.share += step * c.weight
		}
		left -= step * wsum
		keep := open[:0]
		for _, c := range open {
			if c.cap-c.share > 1e-9 {
				keep = append(keep, c)
			}
		}
		open = keep
	}
	sum, sq := 0.0, 0.0
	for _, c := range cs {
		x := c.alloc / c.share
		sum += x
		sq += x * x
	}
	if sq == 0 {
		return 0, true
	}
	return sum * sum / (float64(len(cs)) * sq), true
}

// sample keeps a timeline point at most every m.every seconds.
func (m *meter) sample(now float64) {
	if len(m.timeline) > 0 && now-m.lastS < m.every {
		return
	}
	m.lastS = now
	by := map[string]float64{}
	for _, name := range m.teamOrder {
		by[name] = m.teams[name].alloc
	}
	m.timeline = append(m.timeline, Sample{T: now, Allocated: m.allocGPUs, Pending: m.pending, ByTeam: by})
}
