package main

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sim"
	"github.com/taskgov/taskgov/internal/usage"
)

// simExportCmd writes a live server's cluster and recent jobs as a cluster
// file and a trace, so that an admin can replay the work this cluster really
// ran under a policy they are considering (sim run --policy, sim compare).
func simExportCmd() *cobra.Command {
	var tracePath, clusterPath string
	var since time.Duration
	var ckpt float64
	c := &cobra.Command{Use: "export", Short: "Write a live server's cluster and its recent jobs as a cluster file and a trace, to replay under another policy (admin)",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if since <= 0 {
				return &model.FieldError{Field: "--since", Problem: "must be a positive duration", Fix: "pass e.g. --since 7d for the last week"}
			}
			if ckpt <= 0 {
				return &model.FieldError{Field: "--checkpoint-interval", Problem: "must be above 0", Fix: "pass e.g. --checkpoint-interval 60"}
			}
			cl, err := apiClient()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			var cluster model.Cluster
			if err := cl.Do(ctx, "GET", "/api/v1/cluster", nil, &cluster); err != nil {
				return err
			}
			now := time.Now().UTC()
			from := now.Add(-since)
			tasks, err := allTasks(cmd, cl, from)
			if err != nil {
				return err
			}
			var rep usage.Report
			path := client.Query("/api/v1/usage/report", "type", usage.Detailed, "from", from.Format(time.RFC3339Nano),
				"to", now.Add(time.Minute).Format(time.RFC3339Nano))
			if err := cl.Do(ctx, "GET", path, nil, &rep); err != nil {
				return err
			}
			// Tasks submitted before the window that ran within it have
			// windows there but were not listed: fetch them one by one.
			have := map[string]bool{}
			for _, t := range tasks {
				have[t.Name] = true
			}
			for _, w := range rep.Detailed {
				if have[w.Task] {
					continue
				}
				have[w.Task] = true
				var t apitypes.Task
				if err := cl.Do(ctx, "GET", "/api/v1/tasks/"+w.Task, nil, &t); err != nil {
					return fmt.Errorf("task %s, submitted before the window: %w", w.Task, err)
				}
				tasks = append(tasks, t)
			}
			jobs, left, carried := traceFromRecords(tasks, rep.Detailed, from, ckpt)
			if err := sim.WriteTrace(tracePath, jobs); err != nil {
				return err
			}
			if err := writeClusterFile(clusterPath, cluster); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "wrote %d jobs submitted since %s to %s, and the cluster (%d nodes, %d teams) to %s\n",
				len(jobs), from.Format(time.RFC3339), tracePath, len(cluster.Nodes), len(cluster.Teams), clusterPath)
			if carried > 0 {
				fmt.Fprintf(out, "%d of them were submitted before the window and ran within it: they are submitted at its start, with the time they ran within it\n", carried)
			}
			for _, why := range sortedKeys(left) {
				fmt.Fprintf(out, "left out %d: %s\n", left[why], why)
			}
			fmt.Fprintf(out, "replay: taskgov sim run --cluster %s --trace %s --out DIR [--policy POLICY.yaml] [--checkpoint-on-preempt]\n", clusterPath, tracePath)
			return nil
		}}
	f := c.Flags()
	f.StringVar(&tracePath, "trace", "trace.csv", "where to write the trace (.csv, or .jsonl, which CPU-only jobs need)")
	f.StringVar(&clusterPath, "cluster", "cluster.yaml", "where to write the cluster file")
	daysVar(f, &since, "since", 7*24*time.Hour, "export jobs submitted this long ago or later (7d, 36h)")
	f.Float64Var(&ckpt, "checkpoint-interval", 60, "checkpoint interval (s) given to jobs that reported checkpoints; it stands in for the checkpoint a preempted job saves in its grace period")
	return c
}

// allTasks pages through every task the token may read that was submitted
// at or after since.
func allTasks(cmd *cobra.Command, cl *client.Client, since time.Time) ([]apitypes.Task, error) {
	var tasks []apitypes.Task
	for after := int64(0); ; {
		var page struct {
			Tasks     []apitypes.Task
			NextAfter int64
		}
		path := client.Query("/api/v1/tasks", "since", since.Format(time.RFC3339Nano), "limit", "1000", "after", fmt.Sprint(after))
		if err := cl.Do(cmd.Context(), "GET", path, nil, &page); err != nil {
			return nil, err
		}
		tasks = append(tasks, page.Tasks...)
		if page.NextAfter == 0 {
			return tasks, nil
		}
		after = page.NextAfter
	}
}

// traceFromRecords turns tasks submitted at or after from, with their
// execution windows from a detailed usage report (clipped to the window),
// into trace jobs, submit times counted from the first job's. A task
// submitted earlier that runs within the window is carried in: it is
// submitted at the window's start with the time it ran within it. A job's
// duration is the work it needed: for a task that reported checkpoints, the
// sum of its runs (each resumed where the last left off, as a preempted task
// saves a checkpoint in its grace period); for one that did not, its last
// run (each restart began from scratch). A run still going is cut at the
// report's end, as the Alibaba importer cuts pods still running. Tasks that
// never ran, and memory-only requests (the trace has no memory column), are
// left out and counted by reason.
func traceFromRecords(tasks []apitypes.Task, windows []usage.DetailRow, from time.Time, ckpt float64) (jobs []sim.Job, left map[string]int, carried int) {
	runs := map[string][]usage.DetailRow{}
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
		if !t.CheckpointAt.IsZero() {
			dur, interval = 0, ckpt
			for _, r := range rs {
				dur += r.End.Sub(r.Start).Seconds()
			}
		}
		if early {
			carried++
		}
		j := sim.Job{SubmitS: roundMS(max(t.SubmittedAt.Sub(from).Seconds(), 0)), Name: t.Name, Team: t.Team, Priority: spec.Priority,
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

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
