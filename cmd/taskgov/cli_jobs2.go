package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/store"
)

// jobDetail is what get-job prints; events come with --verbose.
type jobDetail struct {
	apitypes.Task
	Events []store.Event `json:"events,omitempty"`
}

func getJobCmd() *cobra.Command {
	var j jobFlags
	var output string
	var verbose bool
	c := &cobra.Command{
		Use:   "get-job",
		Short: "Show a job; --verbose adds its event timeline, placement and preemption history",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := j.required(); err != nil {
				return err
			}
			cl, err := apiClient()
			if err != nil {
				return err
			}
			var d jobDetail
			if err := cl.Do(cmd.Context(), "GET", "/api/v1/tasks/"+j.name, nil, &d.Task); err != nil {
				return err
			}
			if verbose {
				var evs struct{ Events []store.Event }
				if err := cl.Do(cmd.Context(), "GET", "/api/v1/tasks/"+j.name+"/events", nil, &evs); err != nil {
					return err
				}
				d.Events = evs.Events
			}
			return printOut(cmd.OutOrStdout(), output, d, func(tw *tabwriter.Writer) {
				t := d.Task
				row(tw, "Name:", t.Name)
				row(tw, "Namespace:", model.NamespacePrefix+t.Team)
				row(tw, "State:", t.State)
				row(tw, "Priority:", orDash(t.Spec.Priority))
				row(tw, "Instance type:", fmt.Sprintf("%s x %d", t.Spec.InstanceType, t.Spec.Nodes))
				row(tw, "Submitted:", t.SubmittedAt.UTC().Format(time.RFC3339))
				row(tw, "Resumes:", t.Resumes)
				if t.Why != "" {
					row(tw, "Queue position:", t.Position)
					row(tw, "Why:", strings.TrimPrefix(t.Why, "waiting: "))
				}
				if t.Message != "" {
					row(tw, "Message:", t.Message)
				}
				if !verbose {
					return
				}
				for _, p := range t.Placement {
					row(tw, "Pod:", fmt.Sprintf("%s-%d on %s GPUs %v", t.Name, p.Rank, p.Node, p.GPUs))
				}
				row(tw, "Events:")
				for _, ev := range d.Events {
					row(tw, "  "+ev.At.UTC().Format("15:04:05"), ev.Kind, ev.Message)
				}
			})
		},
	}
	j.add(c)
	c.Flags().BoolVarP(&verbose, "verbose", "v", false, "add events, placement and preemption history")
	c.Flags().StringVarP(&output, "output", "o", defaultOutput(), "table, json or yaml")
	return c
}

// taskAction posts an action on a job and prints a one-line result.
func taskAction(ctx context.Context, cmd *cobra.Command, name, action string, body any) error {
	cl, err := apiClient()
	if err != nil {
		return err
	}
	var t apitypes.Task
	if err := cl.Do(ctx, "POST", "/api/v1/tasks/"+name+"/"+action, body, &t); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %s (state %s)\n", t.Name, action, t.State)
	return nil
}

func cancelJobCmd() *cobra.Command {
	var j jobFlags
	c := &cobra.Command{
		Use:   "cancel-job",
		Short: "Cancel a job; its pods get SIGTERM and their grace period",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := j.required(); err != nil {
				return err
			}
			return taskAction(cmd.Context(), cmd, j.name, "cancel", nil)
		},
	}
	j.add(c)
	return c
}

func patchJobCmd() *cobra.Command {
	var j jobFlags
	var priority string
	c := &cobra.Command{
		Use:       "patch-job suspend|unsuspend|priority",
		Short:     "Suspend or unsuspend a job, or change its priority class (--priority)",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"suspend", "unsuspend", "priority"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := j.required(); err != nil {
				return err
			}
			switch args[0] {
			case "suspend":
				return taskAction(cmd.Context(), cmd, j.name, "suspend", nil)
			case "unsuspend", "resume":
				return taskAction(cmd.Context(), cmd, j.name, "resume", nil)
			case "priority":
				if priority == "" {
					return &model.FieldError{Field: "--priority", Problem: "no class given", Fix: "pass --priority CLASS"}
				}
				return taskAction(cmd.Context(), cmd, j.name, "priority", map[string]string{"priority": priority})
			}
			return &model.FieldError{Field: "patch-job", Problem: fmt.Sprintf("unknown change %q", args[0]), Fix: "use suspend, unsuspend or priority"}
		},
	}
	j.add(c)
	c.Flags().StringVar(&priority, "priority", "", "new priority class (with priority)")
	return c
}

func listPodsCmd() *cobra.Command {
	var j jobFlags
	var output string
	c := &cobra.Command{
		Use:   "list-pods",
		Short: "List a job's pods: rank, node and GPUs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := j.required(); err != nil {
				return err
			}
			var t apitypes.Task
			if err := call(cmd, "GET", "/api/v1/tasks/"+j.name, nil, &t); err != nil {
				return err
			}
			type pod struct {
				PodName string `json:"PodName"`
				Rank    int    `json:"Rank"`
				Node    string `json:"Node"`
				GPUs    []int  `json:"GPUs"`
				Status  string `json:"Status"`
			}
			pods := []pod{}
			for _, p := range t.Placement {
				pods = append(pods, pod{fmt.Sprintf("%s-%d", t.Name, p.Rank), p.Rank, p.Node, p.GPUs, t.State})
			}
			return printOut(cmd.OutOrStdout(), output, map[string]any{"pods": pods}, func(tw *tabwriter.Writer) {
				row(tw, "POD", "RANK", "NODE", "GPUS", "STATUS")
				for _, p := range pods {
					row(tw, p.PodName, p.Rank, p.Node, intsList(p.GPUs), p.Status)
				}
			})
		},
	}
	j.add(c)
	c.Flags().StringVarP(&output, "output", "o", defaultOutput(), "table, json or yaml")
	return c
}

func intsList(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return orDash(strings.Join(parts, ","))
}

func getLogCmd() *cobra.Command {
	var j jobFlags
	var pod string
	var follow bool
	c := &cobra.Command{
		Use:   "get-log",
		Short: "Print a pod's output; --follow keeps printing until the job ends",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := j.required(); err != nil {
				return err
			}
			rank := 0
			if pod != "" {
				r, err := strconv.Atoi(pod[strings.LastIndex(pod, "-")+1:])
				if err != nil {
					return &model.FieldError{Field: "--pod", Problem: fmt.Sprintf("%q is not a pod of this job", pod), Fix: "pass a rank or a pod name from list-pods"}
				}
				rank = r
			}
			cl, err := apiClient()
			if err != nil {
				return err
			}
			printed := 0
			for {
				b, err := cl.Raw(cmd.Context(), "GET", client.Query("/api/v1/tasks/"+j.name+"/logs", "rank", strconv.Itoa(rank)), nil)
				if err != nil {
					return err
				}
				if len(b) > printed {
					_, _ = cmd.OutOrStdout().Write(b[printed:])
					printed = len(b)
				}
				if !follow {
					return nil
				}
				var t apitypes.Task
				if err := cl.Do(cmd.Context(), "GET", "/api/v1/tasks/"+j.name, nil, &t); err != nil {
					return err
				}
				if t.State == "Succeeded" || t.State == "Failed" || t.State == "Cancelled" {
					b, _ := cl.Raw(cmd.Context(), "GET", client.Query("/api/v1/tasks/"+j.name+"/logs", "rank", strconv.Itoa(rank)), nil)
					if len(b) > printed {
						_, _ = cmd.OutOrStdout().Write(b[printed:])
					}
					return nil
				}
				select {
				case <-cmd.Context().Done():
					return nil
				case <-time.After(500 * time.Millisecond):
				}
			}
		},
	}
	j.add(c)
	c.Flags().StringVarP(&pod, "pod", "p", "", "pod rank or name (default: rank 0)")
	c.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new output until the job ends")
	return c
}
