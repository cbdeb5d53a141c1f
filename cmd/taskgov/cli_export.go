package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/model"
)

// exportCmd writes the server's policy and teams as HyperPod's SageMaker
// API documents: one CreateClusterSchedulerConfig and one
// CreateComputeQuota per team, ready for `aws sagemaker create-...
// --cli-input-json` and for `taskgov apply -f`, naming on stderr every
// setting they cannot carry; or (--format taskgov) as a cluster file of
// teams and policy with every field, which `taskgov apply -f` reads back
// identical.
func exportCmd() *cobra.Command {
	var format, dir, arn string
	c := &cobra.Command{Use: "export --format hyperpod|taskgov [--out DIR|FILE]",
		Short: "Write the policy and teams as HyperPod ClusterSchedulerConfig and ComputeQuota JSON, or as a taskgov cluster file (admin)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "hyperpod" && format != "taskgov" {
				return &model.FieldError{Field: "--format", Problem: fmt.Sprintf("unknown format %q", format), Fix: "use --format hyperpod or --format taskgov"}
			}
			cl, err := apiClient()
			if err != nil {
				return err
			}
			if format == "taskgov" {
				return exportTaskgov(cmd, cl, dir)
			}
			p, err := cl.Policy(cmd.Context())
			if err != nil {
				return err
			}
			teams, err := cl.Teams(cmd.Context())
			if err != nil {
				return err
			}
			sched, notes := exportScheduler(p, arn)
			docs := []any{sched}
			names := []string{"cluster-scheduler-config.json"}
			for _, t := range teams {
				docs = append(docs, exportQuota(t, arn))
				names = append(names, "compute-quota-"+t.Name+".json")
				for _, q := range t.Quotas {
					if q.LendingLimit != nil {
						notes = append(notes, fmt.Sprintf("team %s: lendingLimit of %s has no HyperPod field (HyperPod lends all idle quota)", t.Name, q.InstanceType))
					}
				}
				if t.PreemptTeamTasks == model.PreemptLowerOrNewerEqualPriority {
					notes = append(notes, fmt.Sprintf("team %s: preemptTeamTasks LowerOrNewerEqualPriority has no HyperPod value: written as LowerPriority", t.Name))
				}
				if t.BorrowWithinGroup.Preempts() {
					notes = append(notes, fmt.Sprintf("team %s: borrowWithinGroup has no HyperPod field", t.Name))
				}
				if t.Group != "" && t.Group != model.DefaultGroup {
					notes = append(notes, fmt.Sprintf("team %s: lending group %s has no HyperPod field (HyperPod lends across the whole cluster)", t.Name, t.Group))
				}
				notes = append(notes, teamLost(t)...)
			}
			notes = append(notes, policyLost(p)...)
			if len(notes) > 0 {
				notes = append(notes, "all of the above: `taskgov export --format taskgov` writes every field, and `taskgov apply -f` of the HyperPod documents keeps them on a team that has them")
			}
			for _, n := range notes {
				fmt.Fprintln(cmd.ErrOrStderr(), "not exported: "+n)
			}
			if dir == "" {
				return writeIndented(cmd.OutOrStdout(), docs, 2)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			for i, d := range docs {
				b, _ := json.MarshalIndent(d, "", "  ")
				if err := os.WriteFile(filepath.Join(dir, names[i]), append(b, '\n'), 0o644); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d documents to %s\n", len(docs), dir)
			return nil
		}}
	c.Flags().StringVar(&format, "format", "hyperpod", "hyperpod: SageMaker ClusterSchedulerConfig and ComputeQuota JSON; taskgov: a cluster file of the teams and policy, every field")
	c.Flags().StringVar(&dir, "out", "", "hyperpod: write one file per document into this directory (default: a JSON array on stdout); taskgov: write the cluster file here (default: stdout)")
	c.Flags().StringVar(&arn, "cluster-arn", "", "the HyperPod cluster's ARN to write into each document")
	return c
}
