package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

func listJobsCmd() *cobra.Command {
	var namespace, selector, output string
	var all, pending, debug bool
	c := &cobra.Command{
		Use:   "list-jobs",
		Short: "List jobs; --pending shows queue position and why each waits",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if err := checkOutput(output, "table", "json", "yaml"); err != nil {
				return err
			}
			sel, err := parseSelector(selector)
			if err != nil {
				return err
			}
			cl, err := apiClient()
			if err != nil {
				return err
			}
			r := newResolver(cl)
			team := ""
			if !all {
				// Plain taskgov lists every team by default; HyperPod lists
				// the default namespace.
				if namespace != "" || hyperpodMode {
					if team, err = r.team(ctx, namespace); err != nil {
						return err
					}
				} else if err := r.load(ctx); err != nil {
					return err
				}
			} else if err := r.load(ctx); err != nil {
				return err
			}
			var tasks []apitypes.Task
			if pending {
				tasks, err = cl.Queue(ctx, team)
			} else {
				tasks, err = cl.Tasks(ctx, client.TaskQuery{Team: team})
			}
			if err != nil {
				return err
			}
			tasks = sel.filter(r, tasks)
			if hyperpodMode && !pending && output != "yaml" {
				jobs := hyperpodJobs(r, tasks)
				if output == "table" {
					hyperpodJobTable(cmd, jobs["jobs"])
					return nil
				}
				return writeIndented(cmd.OutOrStdout(), jobs, 4)
			}
			now := time.Now()
			return printOut(cmd.OutOrStdout(), output, map[string]any{"jobs": tasks}, func(tw *tabwriter.Writer) {
				if pending {
					row(tw, "NAME", "NAMESPACE", "POSITION", "PRIORITY", "REASON", "WHY")
					for _, t := range tasks {
						code := ""
						if t.Reason != nil {
							code = string(t.Reason.Code)
						}
						row(tw, t.Name, r.namespaceOf(t.Team), t.Position, orDash(t.Spec.Priority), code, strings.TrimPrefix(t.Why, "waiting: "))
					}
					return
				}
				row(tw, "NAME", "NAMESPACE", "STATE", "PRIORITY", "NODES", "INSTANCE TYPE", "AGE", "RESUMES")
				for _, t := range tasks {
					row(tw, t.Name, r.namespaceOf(t.Team), t.State, orDash(t.Spec.Priority), t.Spec.Nodes, t.Spec.InstanceType, ago(t.SubmittedAt, now), t.Resumes)
				}
			})
		},
	}
	c.Flags().StringVarP(&namespace, "namespace", "n", "", "one team's namespace (hyperpod-ns-<team>) or team name")
	c.Flags().BoolVarP(&all, "all-namespaces", "A", false, "every team the token may read")
	c.Flags().StringVarP(&selector, "selector", "l", "", "filter: state=Pending,priority!=training, or HyperPod's labels (kueue.x-k8s.io/priority-class=...)")
	c.Flags().BoolVar(&pending, "pending", false, "show pending jobs in queue order with position and reason")
	c.Flags().StringVarP(&output, "output", "o", defaultOutput(), "table, json or yaml")
	c.Flags().BoolVar(&debug, "debug", false, "accepted (errors are always shown in full)")
	return c
}

// hyperpodJobTable is HyperPod's list-jobs --output table.
func hyperpodJobTable(cmd *cobra.Command, jobs []hyperpodJob) {
	headers := []string{"Name", "Namespace", "CreationTime", "State"}
	withPriority := false
	for _, j := range jobs {
		withPriority = withPriority || j.Priority != ""
	}
	if withPriority {
		headers = append(headers, "Priority")
	}
	var rows [][]string
	for _, j := range jobs {
		ct := ""
		if j.CreationTime != nil {
			ct = *j.CreationTime
		}
		r := []string{j.Name, j.Namespace, ct, j.State}
		if withPriority {
			r = append(r, map[bool]string{true: j.Priority, false: "NA"}[j.Priority != ""])
		}
		rows = append(rows, r)
	}
	presto(cmd.OutOrStdout(), headers, rows)
}

// selectorTerm is one key=value (or ==, !=) of a list-jobs selector.
type selectorTerm struct {
	key, value string
	negate     bool
}

type jobSelector []selectorTerm

// selectorKeys maps HyperPod's job labels onto taskgov's filter keys.
var selectorKeys = map[string]string{
	"state": "state", "priority": "priority", "instanceType": "instanceType", "type": "type", "team": "team",
	labelPriorityClass: "priority", labelQueueName: "queue", labelInstanceType: "instanceType",
}

func parseSelector(s string) (jobSelector, error) {
	var out jobSelector
	if s == "" {
		return out, nil
	}
	for _, term := range strings.Split(s, ",") {
		op, negate := "=", false
		switch {
		case strings.Contains(term, "!="):
			op, negate = "!=", true
		case strings.Contains(term, "=="):
			op = "=="
		}
		k, v, ok := strings.Cut(term, op)
		key := selectorKeys[strings.TrimSpace(k)]
		switch {
		case !ok:
			return nil, &model.FieldError{Field: "--selector", Problem: fmt.Sprintf("%q is not key=value", term), Fix: "use key=value, key==value or key!=value"}
		case key == "":
			return nil, &model.FieldError{Field: "--selector", Problem: fmt.Sprintf("unknown key %q", k),
				Fix: "use state, priority, instanceType, type, team, " + labelPriorityClass + ", " + labelQueueName + " or " + labelInstanceType}
		}
		out = append(out, selectorTerm{key: key, value: strings.TrimSpace(v), negate: negate})
	}
	return out, nil
}

func (sel jobSelector) filter(r *resolver, ts []apitypes.Task) []apitypes.Task {
	out := ts[:0]
	for _, t := range ts {
		ok := true
		for _, term := range sel {
			var have string
			switch term.key {
			case "state":
				have = string(t.State)
			case "priority":
				have = t.Spec.Priority
				if strings.TrimSuffix(term.value, "-priority") == have {
					have = term.value
				}
			case "instanceType":
				have = t.Spec.InstanceType
			case "type":
				have = string(t.Spec.Type)
			case "team":
				have = t.Team
			case "queue":
				have = r.namespaceOf(t.Team) + "-localqueue"
			}
			ok = ok && (have == term.value) != term.negate
		}
		if ok {
			out = append(out, t)
		}
	}
	return out
}
