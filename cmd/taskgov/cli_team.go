package main

import (
	"context"
	"fmt"
	"os"
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
		RunE: withClient(func(cmd *cobra.Command, args []string, cl *client.Client) error {
			// A token that cannot see the team gets the server's answer.
			name, err := newResolver(cl).team(cmd.Context(), args[0])
			if err != nil {
				name = strings.TrimPrefix(args[0], model.NamespacePrefix)
			}
			if err := cl.DeleteTeam(cmd.Context(), name); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "team %s deleted\n", name)
			return nil
		})})
	var output string
	list := &cobra.Command{Use: "list", Short: "List teams", Args: cobra.NoArgs,
		RunE: withClient(func(cmd *cobra.Command, _ []string, cl *client.Client) error {
			teams, err := cl.Teams(cmd.Context())
			if err != nil {
				return err
			}
			resp := struct {
				Teams []model.Team `json:"teams"`
			}{teams}
			return printOut(cmd.OutOrStdout(), output, resp, func(tw *tabwriter.Writer) {
				row(tw, "NAME", "NAMESPACE", "GROUP", "WEIGHT", "LENDING", "BORROW LIMIT", "PREEMPT", "QUOTAS")
				for _, t := range resp.Teams {
					row(tw, t.Name, t.Namespace, t.Group, *t.FairShareWeight, t.Lending, fmt.Sprintf("%d%%", *t.BorrowLimitPercent), t.PreemptTeamTasks, quotaList(t.Quotas))
				}
			})
		})}
	list.Flags().StringVarP(&output, "output", "o", "table", "table, json or yaml")
	var dout string
	describe := &cobra.Command{Use: "describe NAME", Short: "A team's settings and its quota, used, borrowed and lent GPUs per instance type", Args: cobra.ExactArgs(1),
		RunE: withClient(func(cmd *cobra.Command, args []string, cl *client.Client) error {
			name, err := newResolver(cl).team(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			t, err := getTeam(cmd.Context(), cl, name)
			if err != nil {
				return err
			}
			all, err := cl.Usage(cmd.Context())
			if err != nil {
				return err
			}
			rows := []apitypes.Usage{}
			for _, r := range all {
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
				row(tw, "Lending limit:", lendingLimits(t))
				row(tw, "Preempt team tasks:", t.PreemptTeamTasks)
				row(tw, "Queueing strategy:", queueingText(t.QueueingStrategy))
				row(tw, "Reclaim in group:", t.ReclaimWithinGroup)
				row(tw, "Borrow in group:", borrowWithinGroupText(t.BorrowWithinGroup))
				row(tw, "")
				row(tw, "INSTANCE TYPE", "QUOTA GPUS", "USED", "BORROWED", "LENT")
				for _, r := range rows {
					var lent any = r.LentGPUs
					if r.NotPresent {
						lent = "not present (the cluster has no nodes of this type)"
					}
					row(tw, r.InstanceType, r.QuotaGPUs, r.UsedGPUs, r.BorrowedGPUs, lent)
				}
			})
		})}
	describe.Flags().StringVarP(&dout, "output", "o", "table", "table, json or yaml")
	c.AddCommand(list, describe)
	return c
}

func getTeam(ctx context.Context, cl *client.Client, name string) (model.Team, error) {
	teams, err := cl.Teams(ctx)
	if err != nil {
		return model.Team{}, err
	}
	for _, t := range teams {
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
	var file, lending, preempt, group, reclaim, borrowWithin, queueing string
	var quotas, lendLimits []string
	var weight, borrow int
	c := &cobra.Command{Use: verb + " NAME", Short: strings.ToUpper(verb[:1]) + verb[1:] + " a team", Args: cobra.ExactArgs(1),
		RunE: withClient(func(cmd *cobra.Command, args []string, cl *client.Client) (err error) {
			name := strings.TrimPrefix(args[0], model.NamespacePrefix)
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
			if queueing != "" {
				t.QueueingStrategy = model.QueueingStrategy(queueing)
			}
			if group != "" {
				t.Group = group
			}
			if reclaim != "" {
				t.ReclaimWithinGroup = model.ReclaimWithinGroup(reclaim)
			}
			if f.Changed("borrow-within-group") {
				if t.BorrowWithinGroup, err = parseBorrowWithinGroup(borrowWithin); err != nil {
					return err
				}
			}
			if len(quotas) > 0 {
				q, err := parseQuotas(quotas)
				if err != nil {
					return err
				}
				t.Quotas = keepQuotaLimits(q, t.Quotas)
			}
			if err := setLendingLimits(t.Quotas, lendLimits); err != nil {
				return err
			}
			warnings, err := cl.PutTeam(cmd.Context(), t)
			if err != nil {
				return err
			}
			for _, w := range warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "team %s %sd\n", name, verb)
			return nil
		})}
	f := c.Flags()
	f.StringArrayVar(&quotas, "quota", nil, "INSTANCE_TYPE=COUNT or INSTANCE_TYPE:gpus=N[,vcpu=N,memoryGiB=N] (repeatable; replaces all quotas, keeping a type's borrow cap and lending limit)")
	f.IntVar(&weight, "weight", 1, "fair-share weight, 0 to 100")
	f.StringVar(&lending, "lending", "", "LendAndBorrow, Lend or DontLend")
	f.IntVar(&borrow, "borrow-limit", 50, "borrow limit, percent of quota")
	f.StringArrayVar(&lendLimits, "lending-limit", nil, "INSTANCE_TYPE:gpus=N[,vcpu=N,memoryGiB=N], or INSTANCE_TYPE=none: the most of that quota's idle part others may borrow (repeatable)")
	f.StringVar(&preempt, "preempt-team-tasks", "", "LowerPriority, LowerOrNewerEqualPriority (also newer tasks of the same class) or Never")
	f.StringVar(&queueing, "queueing-strategy", "", "BestEffortFIFO (a task that cannot start lets the team's later ones try) or StrictFIFO (no later task of its instance type starts before it)")
	f.StringVar(&group, "group", "", "lending group")
	f.StringVar(&reclaim, "reclaim-within-group", "", "Any, LowerPriority or Never: which of the group's borrowed tasks the team may preempt to get its quota back")
	f.StringVar(&borrowWithin, "borrow-within-group", "", "LowerPriority[:MAX_WEIGHT] or Never: whether a task that must borrow may preempt other teams' borrowed tasks of a lower class (of weight at most MAX_WEIGHT)")
	f.StringVarP(&file, "file", "f", "", "YAML team (the cluster file's team fields)")
	return c
}

// keepQuotaLimits gives each new quota the borrow cap and lending limit its
// instance type had in old: --quota sets amounts, and a type's limits stay
// until --lending-limit (or a team file) changes them. A limit the new
// amount cannot hold is refused by validation, naming the field.
func keepQuotaLimits(quotas, old []model.Quota) []model.Quota {
	for i := range quotas {
		for _, o := range old {
			if o.InstanceType == quotas[i].InstanceType {
				quotas[i].BorrowCap, quotas[i].LendingLimit = o.BorrowCap, o.LendingLimit
			}
		}
	}
	return quotas
}

// quotaFlag is --quota's syntax: TYPE=COUNT (whole instances) or an amount.
var quotaFlag = typedAmountFlag{flag: "--quota",
	fix: "use ml.p5.48xlarge=8 (whole instances) or ml.p5.48xlarge:gpus=16[,vcpu=N,memoryGiB=N] (whole GPUs, amounts 0 or more)"}

func parseQuotas(specs []string) ([]model.Quota, error) {
	var out []model.Quota
	for _, s := range specs {
		v, err := quotaFlag.parse(s)
		if err != nil {
			return nil, err
		}
		q := model.Quota{InstanceType: v.Type}
		if v.IsShort {
			c, err := wholeNumber(v.Short)
			if err != nil {
				return nil, quotaFlag.bad(s, "gives the count "+v.Short+", "+err.Error()+" (instances are whole)")
			}
			q.Count = &c
		} else {
			q.GPUs, q.VCPU, q.MemoryGiB = v.Amount.GPUs, v.Amount.VCPU, v.Amount.MemoryGiB
		}
		out = append(out, q)
	}
	return out, nil
}

// queueingText is a team's queueing strategy as describe shows it: unset
// is the default, BestEffortFIFO.
func queueingText(q model.QueueingStrategy) model.QueueingStrategy {
	if q == "" {
		return model.BestEffortFIFO
	}
	return q
}
