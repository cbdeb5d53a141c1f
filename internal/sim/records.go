package sim

import (
	"math"
	"sort"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Record is what `sim export` knows of one task of a live server: its spec,
// when it was submitted, and whether it ever reported a checkpoint.
type Record struct {
	Name, Team   string
	Seq          int64 // submission order among equal submit times
	Spec         model.TaskSpec
	SubmittedAt  time.Time
	Checkpointed bool
}

// Window is one execution window of a task, from a detailed usage report.
type Window struct {
	Task       string
	Start, End time.Time
}

// TraceFromRecords turns tasks submitted at or after from, with their
// execution windows (clipped to the window), into trace jobs, submit times
// counted from the first job's. A task submitted earlier that runs within
// the window is carried in: it is submitted at the window's start with the
// time it ran within it. A job's duration is the work it needed: for a task
// that reported checkpoints, the sum of its runs (each resumed where the
// last left off, as a preempted task saves a checkpoint in its grace
// period, with checkpoint interval ckpt); for one that did not, its last run
// (each restart began from scratch). A run still going is cut at the
// report's end, as the Alibaba importer cuts pods still running. Tasks that
// never ran, and memory-only requests (the trace has no memory column), are
// left out and counted by reason.
func TraceFromRecords(tasks []Record, windows []Window, from time.Time, ckpt float64) (jobs []Job, left map[string]int, carried int) {
	runs := map[string][]Window{}
	for _, w := range windows {
		runs[w.Task] = append(runs[w.Task], w)
	}
	sort.SliceStable(tasks, func(a, b int) bool {
		if !tasks[a].SubmittedAt.Equal(tasks[b].SubmittedAt) {
			return tasks[a].SubmittedAt.Before(tasks[b].SubmittedAt)
		}
		return tasks[a].Seq < tasks[b].Seq
	})
	left = map[string]int{}
	for _, t := range tasks {
		rs := runs[t.Name]
		early := t.SubmittedAt.Before(from)
		if early && len(rs) == 0 {
			continue // before the window and not running in it
		}
		if len(rs) == 0 {
			left["never ran (no duration to replay)"]++
			continue
		}
		spec := t.Spec.WithDefaults()
		req := spec.PerNode
		if req.GPUs == 0 && req.VCPU == 0 && req.MemoryGiB > 0 {
			left["requests memory only (the trace has no memory column)"]++
			continue
		}
		sort.Slice(rs, func(a, b int) bool { return rs[a].Start.Before(rs[b].Start) })
		dur := rs[len(rs)-1].End.Sub(rs[len(rs)-1].Start).Seconds()
		interval := 0.0
		if t.Checkpointed {
			dur, interval = 0, ckpt
			for _, r := range rs {
				dur += r.End.Sub(r.Start).Seconds()
			}
		}
		if early {
			carried++
		}
		j := Job{SubmitS: roundMS(max(t.SubmittedAt.Sub(from).Seconds(), 0)), Name: t.Name, Team: t.Team, Priority: spec.Priority,
			InstanceType: spec.InstanceType, Nodes: spec.Nodes, GPUsPerNode: req.GPUs, DurationS: max(roundMS(dur), 0.001),
			CheckpointIntervalS: interval}
		if req.GPUs == 0 && req.VCPU > 0 {
			j.VCPUPerNode = req.VCPU
		}
		switch {
		case spec.RequiredTopology != "":
			j.Topology = "required:" + spec.RequiredTopology
		case spec.PreferredTopology != "":
			j.Topology = "preferred:" + spec.PreferredTopology
		}
		jobs = append(jobs, j)
	}
	// The trace starts with its first job, so that the makespan and the
	// utilization cover the work, not the quiet start of the window.
	if len(jobs) > 0 {
		first := jobs[0].SubmitS
		for k := range jobs {
			jobs[k].SubmitS = roundMS(jobs[k].SubmitS - first)
		}
	}
	return jobs, left, carried
}

func roundMS(s float64) float64 { return math.Round(s*1000) / 1000 }
