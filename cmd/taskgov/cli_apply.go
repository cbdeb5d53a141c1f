package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/model"
)

// applyCmd makes the server's teams and policy match a cluster file, or
// imports HyperPod's ComputeQuota and ClusterSchedulerConfig JSON documents
// (files, or directories of *.json). It is idempotent and prints what
// changed, and every field it cannot honour.
func applyCmd() *cobra.Command {
	var files []string
	c := &cobra.Command{Use: "apply -f FILE|DIR ...",
		Short: "Make the server's teams and policy match a cluster file, or import HyperPod's ComputeQuota/ClusterSchedulerConfig JSON (admin)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(files) == 0 {
				return &model.FieldError{Field: "-f", Problem: "no file given", Fix: "pass -f cluster.yaml, or -f quota.json / -f DIR of HyperPod JSON documents"}
			}
			cl, err := apiClient()
			if err != nil {
				return err
			}
			var docs smDocs
			var yamls []string
			for _, f := range files {
				if err := collect(f, &docs, &yamls); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			for _, y := range yamls {
				want, err := config.LoadCluster(y)
				if err != nil {
					return err
				}
				if err := applyCluster(cmd.Context(), cl, out, want); err != nil {
					return err
				}
				if len(want.Images) > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "note: %s: images: is the local executor's, read from the server's --config file when it starts; apply does not change it\n", y)
				}
			}
			if len(docs.quotas)+len(docs.scheduler) > 0 {
				return applySageMaker(cmd.Context(), cl, out, docs)
			}
			return nil
		}}
	c.Flags().StringArrayVarP(&files, "file", "f", nil, "a cluster file, a HyperPod JSON document (one, an array, or several), or a directory of *.json (repeatable)")
	return c
}

// collect reads a path: a directory's *.json files, a .json file's
// documents, or (anything else) a cluster file to apply.
func collect(p string, docs *smDocs, yamls *[]string) error {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &model.FieldError{Field: "-f", Problem: p + " does not exist",
			Fix: "give a cluster file, a HyperPod JSON document or a directory of them (`taskgov export --format hyperpod --out DIR` writes one)"}
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		names, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			return err
		}
		if len(names) == 0 {
			return &model.FieldError{Field: "-f", Problem: p + " holds no *.json files", Fix: "give a directory of HyperPod JSON documents"}
		}
		sort.Strings(names)
		for _, n := range names {
			if err := collect(n, docs, yamls); err != nil {
				return err
			}
		}
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if err := kubeManifestError(p, b); err != nil {
		return err
	}
	// JSON by name, or by content (a YAML cluster file is not valid JSON).
	if strings.HasSuffix(p, ".json") || json.Valid(b) {
		return readSageMaker(filepath.Base(p), b, docs)
	}
	*yamls = append(*yamls, p)
	return nil
}

// applyCluster makes the policy and the file's teams match a cluster file.
func applyCluster(ctx context.Context, cl *client.Client, out io.Writer, want model.Cluster) error {
	cur, err := cl.Policy(ctx)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(cur, want.Policy.WithDefaults()) {
		if _, err := cl.PutPolicy(ctx, want.Policy); err != nil {
			return err
		}
		printPolicyChanges(out, "policy configured", cur, want.Policy)
	} else {
		fmt.Fprintln(out, "policy unchanged")
	}
	return applyTeams(ctx, cl, out, want.Teams)
}

// applyTeams puts each team that differs from the server's and says so.
func applyTeams(ctx context.Context, cl *client.Client, out io.Writer, teams []model.Team) error {
	have, err := cl.Teams(ctx)
	if err != nil {
		return err
	}
	existing := map[string]model.Team{}
	for _, t := range have {
		existing[t.Name] = t
	}
	for _, t := range teams {
		old, ok := existing[t.Name]
		if ok && reflect.DeepEqual(old, t.WithDefaults()) {
			fmt.Fprintf(out, "team %s unchanged\n", t.Name)
			continue
		}
		warnings, err := cl.PutTeam(ctx, t)
		if err != nil {
			return fmt.Errorf("team %s: %w", t.Name, err)
		}
		for _, w := range warnings {
			fmt.Fprintln(out, "warning: "+w)
		}
		if ok {
			fmt.Fprintf(out, "team %s configured\n", t.Name)
		} else {
			fmt.Fprintf(out, "team %s created\n", t.Name)
		}
	}
	return nil
}

// applySageMaker maps HyperPod documents onto the policy and teams. A
// disabled ComputeQuota is reported and not applied; two documents for one
// team, or two scheduler configs, are refused.
func applySageMaker(ctx context.Context, cl *client.Client, out io.Writer, docs smDocs) error {
	if len(docs.scheduler) > 1 {
		return &model.FieldError{Field: "-f", Problem: fmt.Sprintf("%d ClusterSchedulerConfig documents", len(docs.scheduler)), Fix: "a cluster has one; give one"}
	}
	have, err := cl.Teams(ctx)
	if err != nil {
		return err
	}
	cur := map[string]model.Team{}
	for _, t := range have {
		cur[t.Name] = t
	}
	notes := docs.notes
	var teams []model.Team
	seen := map[string]string{}
	for _, q := range docs.quotas {
		if q.ActivationState == "Disabled" {
			notes = append(notes, fmt.Sprintf("ComputeQuota %s: ActivationState Disabled: not applied (team %s left as it is)", q.Name, q.ComputeQuotaTarget.TeamName))
			continue
		}
		if prev, dup := seen[q.ComputeQuotaTarget.TeamName]; dup {
			return &model.FieldError{Field: "ComputeQuota " + q.Name, Problem: fmt.Sprintf("team %s already has ComputeQuota %s", q.ComputeQuotaTarget.TeamName, prev),
				Fix: "give one ComputeQuota per team"}
		}
		seen[q.ComputeQuotaTarget.TeamName] = q.Name
		t, n, err := quotaTeam(q, cur[q.ComputeQuotaTarget.TeamName])
		if err != nil {
			return err
		}
		notes = append(notes, n...)
		teams = append(teams, t)
	}
	// Everything is checked before anything is written.
	live, err := cl.Cluster(ctx)
	if err != nil {
		return err
	}
	var sched *smClusterSchedulerConfig
	var p, want model.Policy
	if len(docs.scheduler) == 1 {
		sched = &docs.scheduler[0]
		if p, err = cl.Policy(ctx); err != nil {
			return err
		}
		want = schedulerPolicy(*sched, p)
	}
	var applied []smComputeQuota
	for _, q := range docs.quotas {
		if q.ActivationState != "Disabled" {
			applied = append(applied, q)
		}
	}
	if err := checkSageMaker(live, sched, want, applied, teams); err != nil {
		return err
	}
	// Classes first, so that teams' tasks keep valid classes; then teams.
	if sched != nil {
		if reflect.DeepEqual(want, p) {
			fmt.Fprintf(out, "policy unchanged (ClusterSchedulerConfig %s)\n", docs.scheduler[0].Name)
		} else {
			if _, err := cl.PutPolicy(ctx, want); err != nil {
				return fmt.Errorf("ClusterSchedulerConfig %s: %w", docs.scheduler[0].Name, err)
			}
			printPolicyChanges(out, fmt.Sprintf("policy configured (ClusterSchedulerConfig %s)", docs.scheduler[0].Name), p, want)
		}
	}
	if err := applyTeams(ctx, cl, out, teams); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(out, "not honoured: "+n)
	}
	return nil
}
