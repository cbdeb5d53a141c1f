package main

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/model"
)

func teamCmd() *cobra.Command {
	c := &cobra.Command{Use: "team", Short: "Compute allocations: create, update, delete, list, describe (admin to change)"}
	c.AddCommand(teamSetCmd("create"), teamSetCmd("update"))
	c.AddCommand(&cobra.Command{Use: "delete NAME", Short: "Delete a team without live jobs", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := call(cmd, "DELETE", "/api/v1/teams/"+teamOf(args[0]), nil, nil); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "team %s deleted\n", teamOf(args[0]))
			return nil
		}})
	var output string
	list := &cobra.Command{Use: "list", Short: "List teams", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var resp struct {
				Teams []model.Team `json:"teams"`
			}
			if err := call(cmd, "GET", "/api/v1/teams", nil, &resp); err != nil {
				return err
			}
			return printOut(cmd.OutOrStdout(), output, resp, func(tw *tabwriter.Writer) {
				row(tw, "NAME", "NAMESPACE", "GROUP", "WEIGHT", "LENDING", "BORROW LIMIT", "PREEMPT", "QUOTAS")
				for _, t := range resp.Teams {
					row(tw, t.Name, t.Namespace, t.Group, *t.FairShareWeight, t.Lending, fmt.Sprintf("%d%%", *t.BorrowLimitPercent), t.PreemptTeamTasks, quotaList(t.Quotas))
				}
			})
		}}
	list.Flags().StringVarP(&output, "output", "o", "table", "table, json or yaml")
	var dout string
	describe := &cobra.Command{Use: "describe NAME", Short: "A team's settings and its quota, used, borrowed and lent GPUs per instance type", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := apiClient()
			if err != nil {
				return err
			}
			name := teamOf(args[0])
			t, err := getTeam(cmd.Context(), cl, name)
			if err != nil {
				return err
			}
			var u struct{ Usage []apitypes.Usage }
			if err := cl.Do(cmd.Context(), "GET", "/api/v1/usage", nil, &u); err != nil {
				return err
			}
			rows := []apitypes.Usage{}
			for _, r := range u.Usage {
				if r.Team == name {
					rows = append(rows, r)
				}
			}
			return printOut(cmd.OutOrStdout(), dout, map[string]any{"team": t, "usage": rows}, func(tw *tabwriter.Writer) {
				row(tw, "Name:", t.Name)
				row(tw, "Namespace:", t.Namespace)
				row(tw, "Group:", t.Group)
				row(tw, "Fair-share weight:", *t.FairShareWeight)
				row(tw, "Lending:", t.Lending)
				row(tw, "Borrow limit:", fmt.Sprintf("%d%% of quota", *t.BorrowLimitPercent))
				row(tw, "Preempt team tasks:", t.PreemptTeamTasks)
				row(tw, "")
				row(tw, "INSTANCE TYPE", "QUOTA GPUS", "USED", "BORROWED", "LENT")
				for _, r := range rows {
					row(tw, r.InstanceType, r.QuotaGPUs, r.UsedGPUs, r.BorrowedGPUs, r.LentGPUs)
				}
			})
		}}
	describe.Flags().StringVarP(&dout, "output", "o", "table", "table, json or yaml")
	c.AddCommand(list, describe)
	return c
}

func getTeam(ctx context.Context, cl *client.Client, name string) (model.Team, error) {
	var resp struct {
		Teams []model.Team `json:"teams"`
	}
	if err := cl.Do(ctx, "GET", "/api/v1/teams", nil, &resp); err != nil {
		return model.Team{}, err
	}
	for _, t := range resp.Teams {
		if t.Name == name {
			return t, nil
		}
	}
	return model.Team{}, &client.Error{Status: 404, Message: fmt.Sprintf("team %q not found (or not visible to this token)", name)}
}

func quotaList(qs []model.Quota) string {
	parts := make([]string, 0, len(qs))
	for _, q := range qs {
		switch {
		case q.Count != nil:
			parts = append(parts, fmt.Sprintf("%s=%d", q.InstanceType, *q.Count))
		case q.GPUs != nil:
			parts = append(parts, fmt.Sprintf("%s:gpus=%d", q.InstanceType, *q.GPUs))
		default:
			parts = append(parts, q.InstanceType+":custom")
		}
	}
	return orDash(strings.Join(parts, ","))
}

// teamSetCmd is team create and team update: flags, or a YAML team with -f.
func teamSetCmd(verb string) *cobra.Command {
	var file, lending, preempt, group string
	var quotas []string
	var weight, borrow int
	c := &cobra.Command{Use: verb + " NAME", Short: strings.ToUpper(verb[:1]) + verb[1:] + " a team", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := apiClient()
			if err != nil {
				return err
			}
			name := teamOf(args[0])
			var t model.Team
			switch {
			case file != "":
				b, err := os.ReadFile(file)
				if err != nil {
					return err
				}
				if err := config.Decode(b, &t); err != nil {
					return err
				}
			case verb == "update":
				if t, err = getTeam(cmd.Context(), cl, name); err != nil {
					return err
				}
			default:
				if _, err := getTeam(cmd.Context(), cl, name); err == nil {
					return &client.Error{Status: 409, Message: fmt.Sprintf("team %q already exists", name), Fix: "use team update"}
				}
			}
			t.Name = name
			f := cmd.Flags()
			if f.Changed("weight") {
				t.FairShareWeight = &weight
			}
			if f.Changed("borrow-limit") {
				t.BorrowLimitPercent = &borrow
			}
			if lending != "" {
				t.Lending = model.Lending(lending)
			}
			if preempt != "" {
				t.PreemptTeamTasks = model.PreemptTeamTasks(preempt)
			}
			if group != "" {
				t.Group = group
			}
			if len(quotas) > 0 {
				if t.Quotas, err = parseQuotas(quotas); err != nil {
					return err
				}
			}
			if err := cl.Do(cmd.Context(), "PUT", "/api/v1/teams/"+name, t, nil); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "team %s %sd\n", name, verb)
			return nil
		}}
	f := c.Flags()
	f.StringArrayVar(&quotas, "quota", nil, "INSTANCE_TYPE=COUNT or INSTANCE_TYPE:gpus=N[,vcpu=N,memoryGiB=N] (repeatable; replaces all quotas)")
	f.IntVar(&weight, "weight", 1, "fair-share weight, 0 to 100")
	f.StringVar(&lending, "lending", "", "LendAndBorrow, Lend or DontLend")
	f.IntVar(&borrow, "borrow-limit", 50, "borrow limit, percent of quota")
	f.StringVar(&preempt, "preempt-team-tasks", "", "LowerPriority or Never")
	f.StringVar(&group, "group", "", "lending group")
	f.StringVarP(&file, "file", "f", "", "YAML team (the cluster file's team fields)")
	return c
}

func parseQuotas(specs []string) ([]model.Quota, error) {
	var out []model.Quota
	bad := func(s string) error {
		return &model.FieldError{Field: "--quota", Problem: fmt.Sprintf("%q is not a quota", s),
			Fix: "use ml.p5.48xlarge=8 (instances) or ml.p5.48xlarge:gpus=16[,vcpu=N,memoryGiB=N]"}
	}
	for _, s := range specs {
		if it, n, ok := strings.Cut(s, "="); ok && !strings.Contains(it, ":") {
			c, err := strconv.ParseInt(n, 10, 64)
			if err != nil {
				return nil, bad(s)
			}
			out = append(out, model.Quota{InstanceType: it, Count: &c})
			continue
		}
		it, rest, ok := strings.Cut(s, ":")
		if !ok {
			return nil, bad(s)
		}
		q := model.Quota{InstanceType: it}
		for _, kv := range strings.Split(rest, ",") {
			k, v, ok := strings.Cut(kv, "=")
			x, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil {
				return nil, bad(s)
			}
			switch k {
			case "gpus":
				g := int64(x)
				q.GPUs = &g
			case "vcpu":
				q.VCPU = &x
			case "memoryGiB":
				q.MemoryGiB = &x
			default:
				return nil, bad(s)
			}
		}
		out = append(out, q)
	}
	return out, nil
}

// applyCmd makes the server's teams and policy match a cluster file. It is
// idempotent and prints what changed. Nodes come from the server's own
// --config; apply leaves them alone.
func applyCmd() *cobra.Command {
	var file string
	c := &cobra.Command{Use: "apply -f CLUSTER_FILE", Short: "Make the server's teams and policy match a cluster file; prints what changed", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file == "" {
				return &model.FieldError{Field: "-f", Problem: "no file given", Fix: "pass -f cluster.yaml"}
			}
			want, err := config.LoadCluster(file)
			if err != nil {
				return err
			}
			cl, err := apiClient()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			var cur model.Policy
			if err := cl.Do(cmd.Context(), "GET", "/api/v1/policy", nil, &cur); err != nil {
				return err
			}
			if !reflect.DeepEqual(cur, want.Policy.WithDefaults()) {
				if err := cl.Do(cmd.Context(), "PUT", "/api/v1/policy", want.Policy, nil); err != nil {
					return err
				}
				fmt.Fprintln(out, "policy configured")
			} else {
				fmt.Fprintln(out, "policy unchanged")
			}
			var have struct{ Teams []model.Team }
			if err := cl.Do(cmd.Context(), "GET", "/api/v1/teams", nil, &have); err != nil {
				return err
			}
			existing := map[string]model.Team{}
			for _, t := range have.Teams {
				existing[t.Name] = t
			}
			for _, t := range want.Teams {
				old, ok := existing[t.Name]
				if ok && reflect.DeepEqual(old, t.WithDefaults()) {
					fmt.Fprintf(out, "team %s unchanged\n", t.Name)
					continue
				}
				if err := cl.Do(cmd.Context(), "PUT", "/api/v1/teams/"+t.Name, t, nil); err != nil {
					return err
				}
				if ok {
					fmt.Fprintf(out, "team %s configured\n", t.Name)
				} else {
					fmt.Fprintf(out, "team %s created\n", t.Name)
				}
			}
			return nil
		}}
	c.Flags().StringVarP(&file, "file", "f", "", "cluster file")
	return c
}
