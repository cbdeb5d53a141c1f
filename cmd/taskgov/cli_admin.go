package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/model"
)

func policyCmd() *cobra.Command {
	c := &cobra.Command{Use: "policy", Short: "Show or change the cluster policy (admin to change)"}
	var output, file string
	get := &cobra.Command{Use: "get", Short: "Show the policy", Args: cobra.NoArgs,
		RunE: withClient(func(cmd *cobra.Command, _ []string, cl *client.Client) error {
			p, err := cl.Policy(cmd.Context())
			if err != nil {
				return err
			}
			return printOut(cmd.OutOrStdout(), output, p, func(tw *tabwriter.Writer) { policyTable(tw, p) })
		})}
	get.Flags().StringVarP(&output, "output", "o", "table", "table, json or yaml")
	var prio, idle string
	var knobs policyKnobs
	set := &cobra.Command{Use: "set", Short: "Change the policy: flags, or a whole policy with -f", Args: cobra.NoArgs,
		RunE: withClient(func(cmd *cobra.Command, _ []string, cl *client.Client) (err error) {
			cur, err := cl.Policy(cmd.Context())
			if err != nil {
				return err
			}
			p := cur
			if file != "" {
				b, err := os.ReadFile(file)
				if err != nil {
					return err
				}
				p = model.Policy{}
				if err := config.Decode(b, &p); err != nil {
					return err
				}
			}
			if prio != "" {
				p.TaskPrioritization = model.TaskPrioritization(prio)
			}
			if idle != "" {
				p.IdleComputeAllocation = model.IdleComputeAllocation(idle)
			}
			if err := knobs.apply(cmd, &p); err != nil {
				return err
			}
			// As apply -f: what changed, one line each, or that nothing did.
			if len(policyChanges(cur, p)) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "policy unchanged")
				return nil
			}
			if _, err := cl.PutPolicy(cmd.Context(), p); err != nil {
				return err
			}
			printPolicyChanges(cmd.OutOrStdout(), "policy updated", cur, p)
			return nil
		})}
	set.Flags().StringVar(&prio, "task-prioritization", "", "FirstComeFirstServe or TaskRanking")
	set.Flags().StringVar(&idle, "idle-compute-allocation", "", "FirstComeFirstServe or FairShare")
	set.Flags().StringVarP(&file, "file", "f", "", "YAML policy to apply whole (other flags then change it further)")
	knobs.add(set)
	c.AddCommand(get, set)
	return c
}

func policyTable(tw *tabwriter.Writer, p model.Policy) {
	row(tw, "Task prioritization:", p.TaskPrioritization)
	row(tw, "Idle compute allocation:", p.IdleComputeAllocation)
	row(tw, "Borrow unallocated:", deref(p.BorrowUnallocated))
	row(tw, "Fair-share rebalance:", deref(p.FairShareRebalance))
	row(tw, "Fair-share minimum runtime:", fmt.Sprintf("%ds", derefInt(p.FairShareMinRuntimeSeconds)))
	row(tw, "Starvation bound:", fmt.Sprintf("%ds", derefInt(p.StarvationBoundSeconds)))
	row(tw, "Restart cost:", fmt.Sprintf("%ds", derefInt(p.RestartCostSeconds)))
	row(tw, "Preemption delay:", fmt.Sprintf("%gs", p.PreemptionDelaySeconds))
	row(tw, "Victim order:", p.VictimOrder)
	row(tw, "Fair-share preemption:", fairShareStrategiesText(p))
	row(tw, "Max pending per team:", strconv.Itoa(p.PendingCap()))
	for _, c := range p.PriorityClasses {
		row(tw, "Priority class:", fmt.Sprintf("%s (weight %d)", c.Name, c.Weight))
	}
}

func deref(b *bool) string {
	if b == nil {
		return "-"
	}
	return strconv.FormatBool(*b)
}

func derefInt(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}

func priorityClassCmd() *cobra.Command {
	c := &cobra.Command{Use: "priority-class", Short: "Create, delete or list priority classes (admin to change)"}
	var weight, grace int
	var output string
	change := func(cmd *cobra.Command, fn func(p *model.Policy) error) error {
		cl, err := apiClient()
		if err != nil {
			return err
		}
		p, err := cl.Policy(cmd.Context())
		if err != nil {
			return err
		}
		if err := fn(&p); err != nil {
			return err
		}
		_, err = cl.PutPolicy(cmd.Context(), p)
		return err
	}
	create := &cobra.Command{Use: "create NAME", Short: "Create (or re-weight) a class", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := change(cmd, func(p *model.Policy) error {
				for i, pc := range p.PriorityClasses {
					if pc.Name == args[0] {
						p.PriorityClasses[i] = model.PriorityClass{Name: args[0], Weight: weight, GracePeriodSeconds: grace}
						return nil
					}
				}
				p.PriorityClasses = append(p.PriorityClasses, model.PriorityClass{Name: args[0], Weight: weight, GracePeriodSeconds: grace})
				return nil
			})
			if err == nil {
				fmt.Fprintf(cmd.OutOrStdout(), "priority class %s: weight %d\n", args[0], weight)
			}
			return err
		}}
	create.Flags().IntVar(&weight, "weight", 0, "0 to 100; higher ranks first")
	create.Flags().IntVar(&grace, "grace-period", 0, "preemption grace period of its tasks, seconds")
	del := &cobra.Command{Use: "delete NAME", Short: "Delete a class no live task uses", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := change(cmd, func(p *model.Policy) error {
				out := p.PriorityClasses[:0]
				for _, pc := range p.PriorityClasses {
					if pc.Name != args[0] {
						out = append(out, pc)
					}
				}
				if len(out) == len(p.PriorityClasses) {
					return &client.Error{Status: 404, Message: fmt.Sprintf("priority class %q does not exist", args[0])}
				}
				p.PriorityClasses = out
				return nil
			})
			if err == nil {
				fmt.Fprintf(cmd.OutOrStdout(), "priority class %s deleted\n", args[0])
			}
			return err
		}}
	list := &cobra.Command{Use: "list", Short: "List classes", Args: cobra.NoArgs,
		RunE: withClient(func(cmd *cobra.Command, _ []string, cl *client.Client) error {
			p, err := cl.Policy(cmd.Context())
			if err != nil {
				return err
			}
			return printOut(cmd.OutOrStdout(), output, map[string]any{"priorityClasses": p.PriorityClasses}, func(tw *tabwriter.Writer) {
				row(tw, "NAME", "WEIGHT", "GRACE PERIOD")
				for _, pc := range p.PriorityClasses {
					g := "-"
					if pc.GracePeriodSeconds > 0 {
						g = fmt.Sprintf("%ds", pc.GracePeriodSeconds)
					}
					row(tw, pc.Name, pc.Weight, g)
				}
			})
		})}
	list.Flags().StringVarP(&output, "output", "o", "table", "table, json or yaml")
	c.AddCommand(create, del, list)
	return c
}

func nodeCmd() *cobra.Command {
	c := &cobra.Command{Use: "node", Short: "List nodes, or cordon, uncordon or drain one (admin)"}
	var output string
	list := &cobra.Command{Use: "list", Short: "List nodes", Args: cobra.NoArgs,
		RunE: withClient(func(cmd *cobra.Command, _ []string, cl *client.Client) error {
			nodes, err := cl.Nodes(cmd.Context())
			if err != nil {
				return err
			}
			resp := struct {
				Nodes []apitypes.Node `json:"nodes"`
			}{nodes}
			return printOut(cmd.OutOrStdout(), output, resp, func(tw *tabwriter.Writer) {
				row(tw, "NAME", "INSTANCE TYPE", "STATUS", "GPUS FREE", "LAYER-3")
				for _, n := range resp.Nodes {
					status := "Ready"
					switch {
					case !n.Healthy:
						status = "Unhealthy"
					case n.Cordoned:
						status = "Cordoned"
					case n.HeldFor != "":
						status = "Held for " + n.HeldFor
					}
					row(tw, n.Name, n.InstanceType, status, fmt.Sprintf("%d/%d", n.FreeGPUs, n.GPUs), orDash(n.Labels[model.LabelLayer3]))
				}
			})
		})}
	list.Flags().StringVarP(&output, "output", "o", "table", "table, json or yaml")
	c.AddCommand(list)
	for _, action := range []string{"cordon", "uncordon", "drain"} {
		action := action
		c.AddCommand(&cobra.Command{Use: action + " NODE", Short: strings.ToUpper(action[:1]) + action[1:] + " a node", Args: cobra.ExactArgs(1),
			RunE: withClient(func(cmd *cobra.Command, args []string, cl *client.Client) error {
				if err := cl.NodeAction(cmd.Context(), args[0], action); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "node %s: %s\n", args[0], action)
				return nil
			})})
	}
	return c
}

func tokenCmd() *cobra.Command {
	c := &cobra.Command{Use: "token", Short: "Issue, revoke or list API tokens (admin)"}
	var role, team, note, output string
	create := &cobra.Command{Use: "create", Short: "Issue a token; the secret is printed once", Args: cobra.NoArgs,
		RunE: withClient(func(cmd *cobra.Command, _ []string, cl *client.Client) (err error) {
			teamName := team
			if team != "" {
				if teamName, err = newResolver(cl).team(cmd.Context(), team); err != nil {
					return err
				}
			}
			out, err := cl.CreateToken(cmd.Context(), role, teamName, note)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n", out.Token)
			fmt.Fprintf(cmd.ErrOrStderr(), "token %s (%s %s) issued; store it now, it is not shown again\n", out.ID, out.Role, out.Team)
			return nil
		})}
	create.Flags().StringVar(&role, "role", "member", "admin, member or viewer")
	create.Flags().StringVar(&team, "team", "", "the member's team (optional for viewers)")
	create.Flags().StringVar(&note, "note", "", "who or what the token is for")
	revoke := &cobra.Command{Use: "revoke ID", Short: "Revoke a token", Args: cobra.ExactArgs(1),
		RunE: withClient(func(cmd *cobra.Command, args []string, cl *client.Client) error {
			if err := cl.RevokeToken(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "token %s revoked\n", args[0])
			return nil
		})}
	list := &cobra.Command{Use: "list", Short: "List tokens (never their secrets)", Args: cobra.NoArgs,
		RunE: withClient(func(cmd *cobra.Command, _ []string, cl *client.Client) error {
			tokens, err := cl.Tokens(cmd.Context())
			if err != nil {
				return err
			}
			resp := struct {
				Tokens []client.Token `json:"tokens"`
			}{tokens}
			return printOut(cmd.OutOrStdout(), output, resp, func(tw *tabwriter.Writer) {
				row(tw, "ID", "ROLE", "TEAM", "REVOKED", "NOTE")
				for _, t := range resp.Tokens {
					row(tw, t.ID, t.Role, orDash(t.Team), !t.RevokedAt.IsZero(), orDash(t.Note))
				}
			})
		})}
	list.Flags().StringVarP(&output, "output", "o", "table", "table, json or yaml")
	c.AddCommand(create, revoke, list)
	return c
}

// policyKnobs are policy set's flags for the policy's scalar settings; each
// changes the policy only when given.
type policyKnobs struct {
	preemptionDelay, starvationBound, restartCost, minRuntime time.Duration
	rebalance, borrowUnallocated                              bool
	victimOrder, fairSharePreemption                          string
	maxPending                                                int
}

func (k *policyKnobs) add(c *cobra.Command) {
	f := c.Flags()
	f.IntVar(&k.maxPending, "max-pending-per-team", 0, fmt.Sprintf("the most pending tasks one team may have; a submission past it is refused (default %d)", model.DefaultMaxPendingPerTeam))
	f.DurationVar(&k.preemptionDelay, "preemption-delay", 0, "how long a task waits for room before it may preempt (e.g. 10m; see sim compare)")
	f.DurationVar(&k.starvationBound, "starvation-bound", 0, "how long a within-quota task waits before it may hold nodes")
	f.DurationVar(&k.restartCost, "restart-cost", 0, "restart time charged per preemption when choosing victims")
	f.DurationVar(&k.minRuntime, "fair-share-min-runtime", 0, "how long a borrowed task runs before a fair-share rebalance may take it")
	f.BoolVar(&k.rebalance, "fair-share-rebalance", true, "let FairShare preempt borrowers above their share")
	f.BoolVar(&k.borrowUnallocated, "borrow-unallocated", true, "let teams borrow capacity no quota covers")
	f.StringVar(&k.victimOrder, "victim-order", "", "LeastLostWork or MostRecentlyStarted")
	f.StringVar(&k.fairSharePreemption, "fair-share-preemption", "",
		"the fair-share strategies a rebalance tries, in order, comma-separated: LessThanOrEqualToFinalShare (the default), LessThanInitialShare, or both in that order; \"default\" resets")
}

// apply writes the flags the user gave into p, in whole seconds where the
// policy counts whole seconds.
func (k *policyKnobs) apply(cmd *cobra.Command, p *model.Policy) error {
	set := func(name string) bool { return cmd.Flags().Changed(name) }
	secs := func(name string, d time.Duration) (int64, error) {
		if d < 0 || d%time.Second != 0 {
			return 0, &model.FieldError{Field: "--" + name, Problem: fmt.Sprintf("%v is not a whole number of seconds of 0 or more", d), Fix: "use e.g. 30m or 90s"}
		}
		return int64(d / time.Second), nil
	}
	for _, d := range []struct {
		name string
		v    time.Duration
		to   **int64
	}{{"starvation-bound", k.starvationBound, &p.StarvationBoundSeconds}, {"restart-cost", k.restartCost, &p.RestartCostSeconds},
		{"fair-share-min-runtime", k.minRuntime, &p.FairShareMinRuntimeSeconds}} {
		if !set(d.name) {
			continue
		}
		n, err := secs(d.name, d.v)
		if err != nil {
			return err
		}
		*d.to = &n
	}
	if set("preemption-delay") {
		if k.preemptionDelay < 0 {
			return &model.FieldError{Field: "--preemption-delay", Problem: "is negative", Fix: "use 0 or more, e.g. 10m"}
		}
		p.PreemptionDelaySeconds = k.preemptionDelay.Seconds()
	}
	if set("fair-share-rebalance") {
		p.FairShareRebalance = &k.rebalance
	}
	if set("borrow-unallocated") {
		p.BorrowUnallocated = &k.borrowUnallocated
	}
	if set("victim-order") {
		p.VictimOrder = model.VictimOrder(k.victimOrder)
	}
	if set("fair-share-preemption") {
		p.FairSharePreemption = parseFairShareStrategies(k.fairSharePreemption)
	}
	if set("max-pending-per-team") {
		if k.maxPending < 1 || k.maxPending > model.MaxMaxPendingPerTeam {
			return &model.FieldError{Field: "--max-pending-per-team", Problem: fmt.Sprintf("%d is out of range", k.maxPending),
				Fix: fmt.Sprintf("use 1 to %d", model.MaxMaxPendingPerTeam)}
		}
		p.MaxPendingPerTeam = &k.maxPending
	}
	return nil
}
