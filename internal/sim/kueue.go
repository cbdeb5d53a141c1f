package sim

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// Kueue's scheduler performance baseline (test/performance/scheduler,
// configs/baseline), expressed in taskgov's model: cohorts are groups,
// ClusterQueues are teams; one CPU-only node holds the cohorts' combined
// quota, since Kueue's test has no nodes to fragment.
const (
	KueueCohorts        = 5
	KueueQueuesByCohort = 6
	KueueType           = "kueue.cpu"
)

// KueueClass is one workload class of the baseline.
type KueueClass struct {
	Name      string
	CPU       float64
	DurationS float64
	Weight    int // Kueue priorities 50/100/200, scaled into 0-100
	Count     int
	EveryS    float64
}

// KueueClasses are the baseline's workloads, per ClusterQueue.
var KueueClasses = []KueueClass{
	{"small", 1, 0.2, 25, 350, 0.1},
	{"medium", 5, 0.5, 50, 100, 0.5},
	{"large", 20, 1.0, 100, 50, 1.2},
}

// KueueBaseline returns the cluster and trace. Kueue's generator waits one
// creation interval before each workload of a set, so the i-th (from 0)
// arrives at (i+1) intervals (kueueArrival). With allAtZero every workload
// arrives at t = 0 (Kueue's second variant).
func KueueBaseline(allAtZero bool) (model.Cluster, []Job) {
	queues := KueueCohorts * KueueQueuesByCohort
	never := false
	zero := int64(0)
	c := model.Cluster{
		InstanceTypes: []model.InstanceType{{Name: KueueType, GPUs: 0, VCPU: float64(20 * queues), MemoryGiB: 4096}},
		Nodes:         []model.Node{{Name: "kueue-0", InstanceType: KueueType}},
		Policy: model.Policy{TaskPrioritization: model.TaskRanking, IdleComputeAllocation: model.IdleFirstComeFirstServe,
			BorrowUnallocated: &never, FairShareRebalance: &never, RestartCostSeconds: &zero,
			Preemption: model.PreemptImmediate}, // Kueue preempts at once
	}
	for _, k := range KueueClasses {
		c.Policy.PriorityClasses = append(c.Policy.PriorityClasses, model.PriorityClass{Name: k.Name, Weight: k.Weight})
	}
	quota, borrow := 20.0, 100.0
	pct := 500
	var jobs []Job
	for co := 0; co < KueueCohorts; co++ {
		for q := 0; q < KueueQueuesByCohort; q++ {
			team := fmt.Sprintf("cq-%d-%d", co, q)
			c.Teams = append(c.Teams, model.Team{Name: team, Group: fmt.Sprintf("cohort-%d", co), BorrowLimitPercent: &pct,
				Quotas: []model.Quota{{InstanceType: KueueType, VCPU: &quota, MemoryGiB: ptrF(0), BorrowCap: &model.Amount{VCPU: &borrow}}}})
			for _, k := range KueueClasses {
				for i := 0; i < k.Count; i++ {
					at := kueueArrival(k, i)
					if allAtZero {
						at = 0
					}
					jobs = append(jobs, Job{SubmitS: at, Name: fmt.Sprintf("%s-%s-%d", team, k.Name, i), Team: team,
						Priority: k.Name, InstanceType: KueueType, Nodes: 1, VCPUPerNode: k.CPU, DurationS: k.DurationS})
				}
			}
		}
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].SubmitS < jobs[b].SubmitS })
	return c, jobs
}

// kueueArrival is when the i-th workload (from 0) of class k arrives: its
// set's generator sleeps one interval before creating each workload.
func kueueArrival(k KueueClass, i int) float64 { return roundMS(float64(i+1) * k.EveryS) }

func ptrF(f float64) *float64 { return &f }

// KueueFigures are the baseline's measures, as Kueue's recorder defines them.
type KueueFigures struct {
	WallS    float64
	UsagePct float64 // mean over ClusterQueues
	// AdmitS is the mean time to the last admission per class (Kueue's
	// recorder: a preempted workload counts its readmission); AdmitFirstS to
	// the first (nil where not measured).
	AdmitS      map[string]float64
	AdmitFirstS map[string]float64
	Evictions   int
	BoundS      float64
}

// KueueResult extracts the baseline's measures from a report.
func KueueResult(r *Report) KueueFigures {
	f := KueueFigures{WallS: r.MakespanS, AdmitS: map[string]float64{}, AdmitFirstS: map[string]float64{}, Evictions: r.Preemptions.Count}
	sum, n := 0.0, 0
	for name, t := range r.Teams {
		if strings.HasPrefix(name, "cq-") {
			sum += t.CPUUsage
			n++
		}
	}
	if n > 0 {
		f.UsagePct = 100 * sum / float64(n)
	}
	for class, s := range r.Wait.ByPriority {
		f.AdmitFirstS[class] = s.MeanS
	}
	for class, s := range r.WaitLast.ByPriority {
		f.AdmitS[class] = s.MeanS
	}
	f.BoundS = KueueCohortBound()
	return f
}

// KueueCohortBound is the makespan lower bound of one cohort: its work
// arriving at or after each arrival time, on its 120 CPU (Kueue's 66 s).
func KueueCohortBound() float64 {
	cap := 20.0 * KueueQueuesByCohort
	var ws []work
	for q := 0; q < KueueQueuesByCohort; q++ {
		for _, k := range KueueClasses {
			for i := 0; i < k.Count; i++ {
				ws = append(ws, work{arrival: kueueArrival(k, i), size: k.CPU * k.DurationS, duration: k.DurationS})
			}
		}
	}
	return math.Round(makespanLower(ws, cap)*10) / 10
}
