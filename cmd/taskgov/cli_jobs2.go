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
)

// findJob reads a job and checks it is in the namespace given, if any. Job
// names are global in taskgov (see README), so the namespace only checks.
func findJob(ctx context.Context, cl *client.Client, r *resolver, j jobFlags) (apitypes.Task, error) {
	if err := j.required(); err != nil {
		return apitypes.Task{}, err
	}
	team := ""
	if j.namespace != "" && j.namespace != "default" {
		var err error
		if team, err = r.team(ctx, j.namespace); err != nil {
			return apitypes.Task{}, err
		}
	} else if err := r.load(ctx); err != nil {
		return apitypes.Task{}, err
	}
	t, err := cl.Task(ctx, j.name)
	if err != nil {
		return t, err
	}
	if team != "" && t.Team != team {
		return t, &client.Error{Status: 404, Message: fmt.Sprintf("job %q not found in namespace %s (it is in %s)", j.name, j.namespace, r.namespaceOf(t.Team))}
	}
	return t, nil
}

func getJobCmd() *cobra.Command {
	var j jobFlags
	var output string
	var verbose, debug bool
	c := &cobra.Command{
		Use:   "get-job",
		Short: "Show a job; --verbose adds its event timeline, placement and preemption history",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			cl, err := apiClient()
			if err != nil {
				return err
			}
			r := newResolver(cl)
			t, err := findJob(ctx, cl, r, j)
			if err != nil {
				return err
			}
			d := jobDetail{Task: t}
			if verbose {
				if d.Events, err = cl.TaskEvents(ctx, j.name); err != nil {
					return err
				}
			}
			if hyperpodMode && output == "json" {
				return writeIndented(cmd.OutOrStdout(), hyperpodDescribe(cl, r, t, verbose), 1)
			}
			return printOut(cmd.OutOrStdout(), output, d, func(tw *tabwriter.Writer) {
				row(tw, "Name:", t.Name)
				row(tw, "Namespace:", r.namespaceOf(t.Team))
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
	c.Flags().BoolVar(&debug, "debug", false, "accepted (errors are always shown in full)")
	return c
}

// actionDelete asks taskAction to delete the job (DELETE, not an action).
const actionDelete = "delete"

// taskAction posts an action on a job and prints a one-line result.
func taskAction(cmd *cobra.Command, j jobFlags, action, priority string) error {
	ctx := cmd.Context()
	cl, err := apiClient()
	if err != nil {
		return err
	}
	if _, err := findJob(ctx, cl, newResolver(cl), j); err != nil {
		return err
	}
	var t apitypes.Task
	switch action {
	case client.ActionPriority:
		if priority, err = priorityClass(ctx, cl, priority); err != nil {
			return err
		}
		t, err = cl.SetPriority(ctx, j.name, priority)
	case actionDelete:
		t, err = cl.DeleteTask(ctx, j.name)
	default:
		t, err = cl.TaskAction(ctx, j.name, action)
	}
	if err != nil {
		return err
	}
	if hyperpodMode && action == actionDelete {
		// HyperPod's cancel-job echoes what its delete returned: None
		// on success, which click prints as an empty line.
		fmt.Fprintln(cmd.OutOrStdout())
	} else {
		fmt.Fprintf(cmd.OutOrStdout(), "%s: %s (state %s)\n", t.Name, action, t.State)
	}
	if action == actionDelete {
		printKept(cmd, t)
	}
	return nil
}

// printKept prints what a delete left in place (a Kubernetes workload
// taskgov did not create; engine.DeleteTask notes it in the message).
func printKept(cmd *cobra.Command, t apitypes.Task) {
	if _, kept, ok := strings.Cut(t.Message, "deleted: "); ok {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", kept)
	}
}

func cancelJobCmd() *cobra.Command {
	var j jobFlags
	var debug bool
	c := &cobra.Command{
		Use:   "cancel-job",
		Short: "Cancel a job; its pods get SIGTERM and their grace period (as hyperpod: delete it, finished or not)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if hyperpodMode { // HyperPod's cancel-job deletes the PyTorchJob
				return taskAction(cmd, j, actionDelete, "")
			}
			return taskAction(cmd, j, client.ActionCancel, "")
		},
	}
	j.add(c)
	c.Flags().BoolVar(&debug, "debug", false, "accepted (errors are always shown in full)")
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
			switch args[0] {
			case "suspend":
				return taskAction(cmd, j, client.ActionSuspend, "")
			case "unsuspend", "resume":
				return taskAction(cmd, j, client.ActionResume, "")
			case "priority":
				if priority == "" {
					return &model.FieldError{Field: "--priority", Problem: "no class given", Fix: "pass --priority CLASS"}
				}
				return taskAction(cmd, j, client.ActionPriority, priority)
			}
			return &model.FieldError{Field: "patch-job", Problem: fmt.Sprintf("Unsupported patch type: '%s'", args[0]), Fix: "use suspend, unsuspend or priority"}
		},
	}
	j.add(c)
	c.Flags().StringVar(&priority, "priority", "", "new priority class (with priority)")
	return c
}

// podRow is one of a job's pods as list-pods shows it.
type podRow struct {
	PodName      string `json:"PodName"`
	Namespace    string `json:"Namespace"`
	Status       string `json:"Status"`
	CreationTime string `json:"CreationTime"`
	Rank         int    `json:"-"`
	Node         string `json:"-"`
	GPUs         []int  `json:"-"`
}

// jobPods lists a job's pods, named by name(task, rank); a job has pods
// while it holds its placement.
func jobPods(r *resolver, t apitypes.Task, name func(string, int) string) []podRow {
	pods := []podRow{}
	phase := t.State // a pod's phase shares the name of its task's state
	if phase == model.StateCancelled {
		phase = model.StateFailed
	}
	for _, p := range t.Placement {
		pods = append(pods, podRow{PodName: name(t.Name, p.Rank), Namespace: r.namespaceOf(t.Team), Status: string(phase),
			CreationTime: pythonTime(t.StartedAt), Rank: p.Rank, Node: p.Node, GPUs: p.GPUs})
	}
	return pods
}

func listPodsCmd() *cobra.Command {
	var j jobFlags
	var output string
	var debug bool
	c := &cobra.Command{
		Use:   "list-pods",
		Short: "List a job's pods (named <job>-worker-<rank>): namespace, status, creation time; the table adds rank, node and GPUs",
		Args:  cobra.NoArgs,
		RunE: withClient(func(cmd *cobra.Command, _ []string, cl *client.Client) error {
			r := newResolver(cl)
			t, err := findJob(cmd.Context(), cl, r, j)
			if err != nil {
				return err
			}
			pods := jobPods(r, t, hyperpodPodName)
			if output == "json" {
				return writeIndented(cmd.OutOrStdout(), map[string]any{"pods": pods}, 1)
			}
			return printOut(cmd.OutOrStdout(), output, map[string]any{"pods": pods}, func(tw *tabwriter.Writer) {
				row(tw, "POD", "NAMESPACE", "STATUS", "RANK", "NODE", "GPUS")
				for _, p := range pods {
					row(tw, p.PodName, p.Namespace, p.Status, p.Rank, p.Node, intsList(p.GPUs))
				}
			})
		}),
	}
	j.add(c)
	c.Flags().StringVarP(&output, "output", "o", defaultOutput(), "table, json or yaml")
	c.Flags().BoolVar(&debug, "debug", false, "accepted (errors are always shown in full)")
	return c
}

func intsList(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return orDash(strings.Join(parts, ","))
}

// podRank reads the rank from a pod name of any of the forms taskgov,
// hyperpod and hyp show (<job>-<rank>, <job>-worker-<rank>,
// <job>-pod-<rank>), or a bare rank.
func podRank(job, pod string) (int, error) {
	s := pod
	for _, p := range []string{job + "-worker-", job + "-pod-", job + "-"} {
		if rest, ok := strings.CutPrefix(pod, p); ok {
			s = rest
			break
		}
	}
	r, err := strconv.Atoi(s)
	if err != nil || r < 0 {
		return 0, &model.FieldError{Field: "--pod", Problem: fmt.Sprintf("Given pod name %s is not associated with training job %s", pod, job),
			Fix: "pass a rank or a pod name from list-pods"}
	}
	return r, nil
}

func getLogCmd() *cobra.Command {
	var j jobFlags
	var pod string
	var follow, debug bool
	c := &cobra.Command{
		Use:   "get-log",
		Short: "Print a pod's output; --follow keeps printing until the job ends",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			cl, err := apiClient()
			if err != nil {
				return err
			}
			t, err := findJob(ctx, cl, newResolver(cl), j)
			if err != nil {
				return err
			}
			rank := 0
			if pod != "" {
				if rank, err = podRank(j.name, pod); err != nil {
					return err
				}
				if rank >= max(t.Spec.Nodes, 1) {
					return &model.FieldError{Field: "--pod", Problem: fmt.Sprintf("Given pod name %s is not associated with training job %s", pod, j.name),
						Fix: fmt.Sprintf("the job has %d pods: ranks 0 to %d", t.Spec.Nodes, t.Spec.Nodes-1)}
				}
			}
			// Each read asks for what follows the bytes printed so far: the
			// server sends a large log in capped parts.
			// Following, a server that goes away (a restart) is asked again:
			// printed says where to read on, so nothing is lost or doubled.
			retry := &followRetry{stderr: cmd.ErrOrStderr()}
			var printed int64
			printAll := func() error {
				for {
					part, err := cl.TaskLogPart(ctx, j.name, rank, printed)
					if err != nil {
						return err
					}
					retry.ok()
					_, _ = cmd.OutOrStdout().Write(part.Data)
					if part.End <= printed || !part.More {
						printed = max(printed, part.End)
						return nil
					}
					printed = part.End
				}
			}
			for {
				done := !follow
				err := printAll()
				if err == nil && follow {
					var t apitypes.Task
					t, err = cl.Task(ctx, j.name)
					done = err == nil && t.Terminal()
				}
				if err != nil {
					if follow && retry.again(ctx, err) {
						continue
					}
					return err
				}
				retry.ok()
				if done {
					if follow { // what the run wrote after the last read
						for {
							err := printAll()
							if err == nil || !retry.again(ctx, err) {
								return err
							}
						}
					}
					return nil
				}
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(500 * time.Millisecond):
				}
			}
		},
	}
	j.add(c)
	c.Flags().StringVarP(&pod, "pod", "p", "", "pod name from list-pods, or a rank (default: rank 0)")
	c.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new output until the job ends")
	c.Flags().BoolVar(&debug, "debug", false, "accepted (errors are always shown in full)")
	return c
}
