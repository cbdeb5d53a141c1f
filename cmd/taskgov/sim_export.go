package main

import (
	"fmt"
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
			cluster, err := cl.Cluster(ctx)
			if err != nil {
				return err
			}
			now := time.Now().UTC()
			from := now.Add(-since)
			tasks, err := cl.Tasks(ctx, client.TaskQuery{Since: from})
			if err != nil {
				return err
			}
			rep, err := cl.UsageReportRange(ctx, from, now.Add(time.Minute), usage.Detailed)
			if err != nil {
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
				t, err := cl.Task(ctx, w.Task)
				if err != nil {
					return fmt.Errorf("task %s, submitted before the window: %w", w.Task, err)
				}
				tasks = append(tasks, t)
			}
			recs, runs := simRecords(tasks, rep.Detailed)
			jobs, left, carried := sim.TraceFromRecords(recs, runs, from, ckpt)
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

// simRecords converts what the API sent into the simulator's inputs.
func simRecords(tasks []apitypes.Task, windows []usage.DetailRow) ([]sim.Record, []sim.Window) {
	recs := make([]sim.Record, len(tasks))
	for i, t := range tasks {
		recs[i] = sim.Record{Name: t.Name, Team: t.Team, Seq: t.Seq, Spec: t.Spec, SubmittedAt: t.SubmittedAt, Checkpointed: !t.CheckpointAt.IsZero()}
	}
	runs := make([]sim.Window, len(windows))
	for i, w := range windows {
		runs[i] = sim.Window{Task: w.Task, Start: w.Start, End: w.End}
	}
	return recs, runs
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
