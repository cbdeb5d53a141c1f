package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/client"
)

// newHypRoot is HyperPod's `hyp` CLI over taskgov: verbs grouped by the
// resource they act on (`hyp list hyp-pytorch-job`), with hyp's flags and
// output. Resources other than PyTorch jobs (endpoints, spaces, cluster
// stacks) are not taskgov's and answer with a clear refusal.
func newHypRoot() *cobra.Command {
	root := &cobra.Command{Use: "hyp", Short: "HyperPod's hyp CLI, served by taskgov", SilenceUsage: true, SilenceErrors: true}
	root.PersistentFlags().StringVar(&connFlags.server, "server", "", "taskgov server URL (or TASKGOV_SERVER, or taskgov login)")
	root.PersistentFlags().StringVar(&connFlags.token, "token", "", "API token (or TASKGOV_TOKEN, or taskgov login)")
	group := func(use, short string, newJob func() *cobra.Command) *cobra.Command {
		var run func(*cobra.Command) error
		if use == "create" {
			run = hypCreateFromConfig
		}
		g := hypGroup(use, short, run)
		job, recipe := newJob(), newJob()
		job.Use = "hyp-pytorch-job"
		recipe.Use, recipe.Short = "hyp-recipe-job", job.Short+" (a recipe job is a PyTorch job to taskgov)"
		for _, c := range []*cobra.Command{job, recipe} {
			run, resource := c.RunE, c.Use
			c.RunE = func(cmd *cobra.Command, args []string) error { return hypNotFound(cmd, use, resource, run(cmd, args)) }
		}
		g.AddCommand(job, recipe)
		return g
	}
	create := group("create", "Create a PyTorch job; without a resource, the job of ./config.yaml (hyp init)", hypCreateCmd)
	create.Flags().String("region", "", "refused: for cluster stacks")
	create.Flags().Int("template-version", 0, "refused: for cluster stacks")
	create.Flags().Bool("debug", false, "accepted")
	describe := group("describe", "Describe a PyTorch job, or the cluster", hypDescribeCmd)
	describe.AddCommand(hypDescribeClusterCmd())
	root.AddCommand(
		hypInitCmd(), hypConfigureCmd(), hypValidateCmd(), hypResetCmd(),
		create,
		group("list", "List PyTorch jobs", hypListCmd),
		describe,
		group("delete", "Delete (cancel) a PyTorch job", hypDeleteCmd),
		group("list-pods", "List a PyTorch job's pods", hypListPodsCmd),
		group("get-logs", "Get a pod's logs", hypGetLogsCmd),
		group("get-operator-logs", "Get the scheduler's decisions (taskgov's operator log)", hypOperatorLogsCmd),
		group("exec", "Refused: taskgov does not run commands in pods", hypExecCmd),
		getClustersCmd("list-cluster"), connectClusterCmd("set-cluster-context"), hypClusterContextCmd(), hypGetMonitoringCmd(), loginCmd(),
	)
	root.AddCommand(hypUnserved()...)
	return root
}

// usageError is a refused command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// unsupportedSchema is hyp's "Unsupported schema version" for a version
// taskgov does not serve: a click.ClickException in hyp, which exits 1,
// not a usage error (2).
func unsupportedSchema(version, fix string) error {
	return &clickException{fmt.Sprintf("Unsupported schema version: %s (%s)", version, fix)}
}

// hypNamespace is hyp's --namespace/-n (default "default", which taskgov
// reads as the default namespace: resolver.defaultTeam).
func hypNamespace(c *cobra.Command, ns *string) {
	c.Flags().StringVarP(ns, "namespace", "n", "default", "the job's namespace (default: the login's, the team of namespace default, the token's only team, else all the token's teams)")
}

func hypListCmd() *cobra.Command {
	var ns string
	c := &cobra.Command{Short: "List PyTorch jobs", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			cl, err := apiClient()
			if err != nil {
				return err
			}
			r := newResolver(cl)
			var team string
			if isDefaultNamespace(ns) {
				// A token of several teams with no saved namespace: the
				// default namespace is every team's jobs it may see.
				team, _, err = r.defaultTeam(ctx)
			} else {
				team, err = r.team(ctx, ns)
			}
			if err != nil {
				return err
			}
			ts, err := cl.Tasks(ctx, client.TaskQuery{Team: team})
			if err != nil {
				return err
			}
			var jobs []apitypes.Task
			for _, t := range ts {
				if hyperpodListed(t) {
					jobs = append(jobs, t)
				}
			}
			out := cmd.OutOrStdout()
			if len(jobs) == 0 {
				fmt.Fprintln(out, "No jobs found.")
				return nil
			}
			widths := []int{30, 20, 15, 15}
			line := func(cells ...string) {
				var b strings.Builder
				for i, c := range cells {
					// hyp pads to fixed widths and runs a long name into
					// the next column; taskgov keeps one space between.
					b.WriteString(c + strings.Repeat(" ", max(widths[i]-len(c), 1)))
				}
				fmt.Fprintln(out, b.String())
			}
			fmt.Fprintln(out)
			line("NAME", "NAMESPACE", "STATUS", "AGE")
			fmt.Fprintln(out, strings.Repeat("-", 80))
			now := time.Now()
			for _, t := range jobs {
				line(t.Name, r.namespaceOf(t.Team), hyperpodState(t), hypListAge(t, now))
				fmt.Fprintln(out)
			}
			return nil
		}}
	hypNamespace(c, &ns)
	return c
}

// hypListAge is a job's AGE in hyp list: N/A while it is Suspended (its
// PyTorchJob then has no Created condition to count from; HyperPod's
// task-governance walkthrough shows a suspended job's AGE as N/A, one that
// had run included), else hypAge since its submission.
func hypListAge(t apitypes.Task, now time.Time) string {
	if hyperpodState(t) == hpSuspended {
		return "N/A"
	}
	return hypAge(t.SubmittedAt, now)
}

// hypAge is hyp's AGE column: whole days, else hours, else minutes.
func hypAge(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d >= 24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	case d >= time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dm", int(d.Minutes()))
}

func hypDescribeCmd() *cobra.Command {
	var j jobFlags
	c := &cobra.Command{Short: "Describe a PyTorch job", Args: cobra.NoArgs,
		RunE: withClient(func(cmd *cobra.Command, _ []string, cl *client.Client) error {
			r := newResolver(cl)
			t, err := findJob(cmd.Context(), cl, r, j)
			if err != nil {
				return err
			}
			hypDescribe(cmd.OutOrStdout(), r, t)
			return nil
		})}
	c.Flags().StringVar(&j.name, "job-name", "", "the job's name (required)")
	hypNamespace(c, &j.namespace)
	return c
}

func hypDeleteCmd() *cobra.Command {
	var j jobFlags
	c := &cobra.Command{Short: "Delete a PyTorch job: a live one is cancelled (SIGTERM and its grace period); it leaves the job list", Args: cobra.NoArgs,
		RunE: withClient(func(cmd *cobra.Command, _ []string, cl *client.Client) error {
			if _, err := findJob(cmd.Context(), cl, newResolver(cl), j); err != nil {
				return err
			}
			t, err := cl.DeleteTask(cmd.Context(), j.name)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Successful deleted HyperPodPytorchJob '%s'!\n", j.name)
			printKept(cmd, t)
			return nil
		})}
	c.Flags().StringVar(&j.name, "job-name", "", "the job's name (required)")
	hypNamespace(c, &j.namespace)
	return c
}

func hypListPodsCmd() *cobra.Command {
	var j jobFlags
	c := &cobra.Command{Short: "List a PyTorch job's pods (<job>-pod-<rank>)", Args: cobra.NoArgs,
		RunE: withClient(func(cmd *cobra.Command, _ []string, cl *client.Client) error {
			r := newResolver(cl)
			t, err := findJob(cmd.Context(), cl, r, j)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			pods := jobPods(r, t, hypPodName)
			if len(pods) == 0 {
				fmt.Fprintf(out, "\nNo pods found for job: %s\n", j.name)
				return nil
			}
			fmt.Fprintf(out, "\nPods for job: %s\n\n", j.name)
			fmt.Fprintf(out, "%-50s%-20s\n", "POD NAME", "NAMESPACE")
			fmt.Fprintln(out, strings.Repeat("-", 70))
			for _, p := range pods {
				fmt.Fprintf(out, "%-50s%-20s\n", p.PodName, p.Namespace)
			}
			fmt.Fprintln(out)
			return nil
		})}
	c.Flags().StringVar(&j.name, "job-name", "", "the job's name (required)")
	hypNamespace(c, &j.namespace)
	return c
}

func hypGetLogsCmd() *cobra.Command {
	var j jobFlags
	var pod, container string
	c := &cobra.Command{Short: "Get a pod's logs", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pod == "" {
				return clickMissingOption("--pod-name")
			}
			out := cmd.OutOrStdout()
			fmt.Fprintln(out, "Listing logs for pod: "+pod)
			cl, err := apiClient()
			if err != nil {
				return err
			}
			t, err := findJob(cmd.Context(), cl, newResolver(cl), j)
			if err != nil {
				return err
			}
			// hyp's words for a pod that is not the job's (exit 4: not found).
			rank, err := podRank(t.Name, pod)
			if err != nil || rank >= max(t.Spec.Nodes, 1) {
				return &client.Error{Status: 404, Message: fmt.Sprintf("❌ Pod '%s' not found for job '%s'. Its pods are %s-pod-0 to %s-pod-%d (hyp list-pods hyp-pytorch-job --job-name %s).",
					pod, t.Name, t.Name, t.Name, max(t.Spec.Nodes, 1)-1, t.Name)}
			}
			b, err := cl.TaskLogs(cmd.Context(), t.Name, rank)
			if err != nil {
				return err
			}
			formattedLogs(out, string(b), "Pod Logs for "+pod)
			return nil
		}}
	c.Flags().StringVar(&j.name, "job-name", "", "the job's name (required)")
	c.Flags().StringVar(&pod, "pod-name", "", "the pod (from list-pods; required)")
	c.Flags().StringVar(&container, "container", "", "accepted: taskgov pods have one container")
	hypNamespace(c, &j.namespace)
	return c
}

// formattedLogs prints logs as hyp does: a title, a rule, the non-empty
// lines.
func formattedLogs(w interface{ Write([]byte) (int, error) }, logs, title string) {
	if strings.TrimSpace(logs) == "" {
		fmt.Fprintln(w, "No logs available.")
		return
	}
	fmt.Fprintf(w, "\n%s:\n%s\n", title, strings.Repeat("=", 80))
	for _, l := range strings.Split(logs, "\n") {
		if strings.TrimSpace(l) != "" {
			fmt.Fprintln(w, l)
		}
	}
}

func hypExecCmd() *cobra.Command {
	c := execCmd()
	c.Use, c.Short = "hyp-pytorch-job", "Refused with the kubectl command to use: taskgov does not run commands in pods"
	c.Flags().Lookup("namespace").DefValue = "default"
	// hyp's exec checks its command line first, in its own words.
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		pod, _ := cmd.Flags().GetString("pod")
		all, _ := cmd.Flags().GetBool("all-pods")
		if (pod == "") == !all {
			return &usageError{"Must specify exactly one of the following: --all-pods, --pod"}
		}
		if len(args) == 0 {
			return &usageError{"Missing argument 'COMMAND...': hyp exec hyp-pytorch-job --job-name J (-p POD | --all-pods) -- COMMAND"}
		}
		return run(cmd, args)
	}
	return c
}

func hypClusterContextCmd() *cobra.Command {
	var debug bool
	c := &cobra.Command{Use: "get-cluster-context", Short: "The server and default namespace job commands use", Args: cobra.NoArgs,
		RunE: withClient(func(cmd *cobra.Command, _ []string, cl *client.Client) error {
			// hyp prints "Cluster context:<EKS cluster ARN>"; taskgov's
			// context is the server, and the namespace job commands default to.
			fmt.Fprintf(cmd.OutOrStdout(), "Cluster context:%s\nNamespace:%s\n", cl.Server, orDash(readConfig().Namespace))
			return nil
		})}
	c.Flags().BoolVar(&debug, "debug", false, "accepted")
	return c
}
