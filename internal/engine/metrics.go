package engine

import (
	"sort"
	"time"

	"github.com/taskgov/taskgov/internal/metrics"
	"github.com/taskgov/taskgov/internal/model"
)

// MetricsSnapshot reads what the metrics gauges show: pending tasks by team
// (exact) and by team and reason (from a recent queue listing, see
// pendingcount.go), every team's quota and usage (nothing lent of an
// instance type the cluster has no nodes of), and capacity by instance
// type, from the View.
func (e *Engine) MetricsSnapshot() metrics.Snapshot {
	v := e.View()
	var s metrics.Snapshot
	select {
	case <-e.stopped:
	default:
		s.EngineUp = true
	}
	e.pendingSnapshot(&s, v, time.Now())
	byType := map[string]*metrics.Capacity{}
	var order []string
	for _, n := range v.Nodes() {
		c := byType[n.Spec.InstanceType]
		if c == nil {
			c = &metrics.Capacity{InstanceType: n.Spec.InstanceType}
			byType[n.Spec.InstanceType] = c
			order = append(order, n.Spec.InstanceType)
		}
		c.Nodes++
		if n.Healthy {
			c.HealthyNodes++
		}
		if n.Schedulable {
			c.GPUs += float64(n.GPUs)
		}
		c.AllocatedGPUs += float64(n.GPUs - n.FreeGPUs)
		if n.HeldFor != "" {
			c.HeldNodes++
		}
	}
	sort.Strings(order)
	for _, t := range order {
		s.Capacity = append(s.Capacity, *byType[t])
	}
	for _, u := range v.Usage() {
		lent := float64(u.Lent.GPUs)
		if byType[u.InstanceType] == nil {
			lent = 0 // no nodes of the type: nothing of the quota exists to lend
		}
		s.Usage = append(s.Usage, metrics.Usage{Team: u.Team, InstanceType: u.InstanceType, Quota: float64(u.Quota.GPUs),
			Used: float64(u.Used.GPUs), Borrowed: float64(u.Borrowed.GPUs), Lent: lent})
	}
	return s
}

// UtilisationSample reads the capacity and use of every instance type, over
// schedulable nodes, for the trends sampler, from the View.
func (e *Engine) UtilisationSample(at time.Time) []model.Sample {
	byType := map[string]*model.Sample{}
	var order []string
	for _, n := range e.View().Nodes() {
		if !n.Schedulable {
			continue
		}
		x := byType[n.Spec.InstanceType]
		if x == nil {
			x = &model.Sample{At: at, InstanceType: n.Spec.InstanceType}
			byType[n.Spec.InstanceType] = x
			order = append(order, n.Spec.InstanceType)
		}
		used := n.Capacity.Sub(n.Free)
		x.GPUs += float64(n.Capacity.GPUs)
		x.GPUsUsed += float64(used.GPUs)
		x.VCPU += float64(n.Capacity.MilliCPU) / 1000
		x.VCPUUsed += float64(used.MilliCPU) / 1000
		x.MemGiB += float64(n.Capacity.MemMiB) / 1024
		x.MemUsedGiB += float64(used.MemMiB) / 1024
	}
	sort.Strings(order)
	out := make([]model.Sample, 0, len(order))
	for _, t := range order {
		out = append(out, *byType[t])
	}
	return out
}
