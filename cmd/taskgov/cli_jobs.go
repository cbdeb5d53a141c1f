package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

// teamOf accepts a HyperPod namespace (hyperpod-ns-<team>) or a team name.
func teamOf(ns string) string { return strings.TrimPrefix(ns, model.NamespacePrefix) }

// jobFlags are the flags that name one job.
type jobFlags struct{ name, namespace string }

func (j *jobFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&j.name, "job-name", "", "the job's name")
	c.Flags().StringVar(&j.name, "name", "", "alias of --job-name")
	c.Flags().StringVarP(&j.namespace, "namespace", "n", "", "the team's namespace (hyperpod-ns-<team>) or the team name")
}

func (j *jobFlags) required() error {
	if j.name == "" {
		return &model.FieldError{Field: "--job-name", Problem: "no job named", Fix: "pass --job-name NAME"}
	}
	return nil
}

func startJobCmd() *cobra.Command {
	var j jobFlags
	var s model.TaskSpec
	var command, entry, scriptArgs, configFile, output, memory string
	var env []string
	var tasksPerNode int
	var vcpu float64
	c := &cobra.Command{
		Use:   "start-job",
		Short: "Submit a job (HyperPod's flags)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if configFile != "" {
				b, err := os.ReadFile(configFile)
				if err != nil {
					return err
				}
				var fromFile model.TaskSpec
				dec := yaml.NewDecoder(strings.NewReader(string(b)))
				dec.KnownFields(true)
				if err := dec.Decode(&fromFile); err != nil {
					return &model.FieldError{Field: "--config-file", Problem: err.Error(), Fix: "use the task fields of docs/SCHEDULING.md (name, team, instanceType, nodes, command, ...)"}
				}
				mergeSpec(&fromFile, s, cmd)
				s = fromFile
			}
			if j.name != "" {
				s.Name = j.name
			}
			if j.namespace != "" {
				s.Team = teamOf(j.namespace)
			}
			switch {
			case command != "":
				s.Command = []string{"sh", "-c", command}
			case entry != "":
				s.Command = []string{entry}
				if strings.HasSuffix(entry, ".py") {
					s.Command = []string{"python3", entry}
				}
			}
			if scriptArgs != "" {
				if command != "" {
					s.Command[2] += " " + scriptArgs
				} else {
					s.Command = append(s.Command, strings.Fields(scriptArgs)...)
				}
			}
			if len(s.Command) == 0 {
				return &model.FieldError{Field: "--command", Problem: "the job has nothing to run",
					Fix: "pass --command \"...\" or --entry-script FILE [--script-args \"...\"] (or command: in --config-file)"}
			}
			if memory != "" {
				gib, err := parseGiB(memory)
				if err != nil {
					return err
				}
				s.PerNode.MemoryGiB = gib
			}
			if vcpu > 0 {
				s.PerNode.VCPU = vcpu
			}
			if len(env) > 0 {
				vars, err := parseEnv(env)
				if err != nil {
					return err
				}
				if s.Env == nil {
					s.Env = map[string]string{}
				}
				for k, v := range vars {
					s.Env[k] = v
				}
			}
			if tasksPerNode > 0 {
				if s.Env == nil {
					s.Env = map[string]string{}
				}
				s.Env["NPROC_PER_NODE"] = strconv.Itoa(tasksPerNode)
			}
			cl, err := apiClient()
			if err != nil {
				return err
			}
			if s.InstanceType == "" {
				if s.InstanceType, err = defaultInstanceType(cmd.Context(), cl, s.Team); err != nil {
					return err
				}
			}
			var t apitypes.Task
			if err := cl.Do(cmd.Context(), "POST", "/api/v1/tasks", s, &t); err != nil {
				return err
			}
			return printOut(cmd.OutOrStdout(), output, t, func(tw *tabwriter.Writer) {
				row(tw, "NAME", "NAMESPACE", "STATE", "PRIORITY")
				row(tw, t.Name, model.NamespacePrefix+t.Team, t.State, orDash(t.Spec.Priority))
			})
		},
	}
	j.add(c)
	f := c.Flags()
	f.StringVar(&s.InstanceType, "instance-type", "", "instance type, e.g. ml.p5.48xlarge (default: the team's only quota type)")
	f.IntVar(&s.Nodes, "node-count", 1, "number of nodes (one pod per node)")
	f.IntVar(&tasksPerNode, "tasks-per-node", 0, "processes per node, passed to the job as NPROC_PER_NODE")
	f.StringVar(&s.Priority, "priority", "", "priority class")
	f.StringVar(&command, "command", "", "command line to run on every node (through sh -c)")
	f.StringVar(&entry, "entry-script", "", "script to run (a .py script runs with python3)")
	f.StringVar(&scriptArgs, "script-args", "", "arguments for the command or entry script")
	f.StringArrayVar(&env, "environment", nil, "environment: KEY=VALUE (repeatable or comma-separated) or a JSON object")
	f.BoolVar(&s.AutoResume, "auto-resume", false, "requeue after a failure, up to --max-retry times")
	f.IntVar(&s.MaxRetry, "max-retry", 0, "retries with --auto-resume")
	f.StringVar(&s.RequiredTopology, "required-topology", "", "topology label all pods must share, e.g. topology.k8s.aws/network-node-layer-3")
	f.StringVar(&s.PreferredTopology, "preferred-topology", "", "topology label to try first")
	f.Int64Var(&s.PerNode.GPUs, "accelerators", 0, "GPUs per node for a partial node (default: whole nodes)")
	f.Float64Var(&vcpu, "vcpu", 0, "vCPU per node for a partial node")
	f.StringVar(&memory, "memory", "", "memory per node for a partial node, e.g. 64Gi")
	f.IntVar(&s.GracePeriodSeconds, "grace-period", 0, "seconds between SIGTERM and SIGKILL on preemption (default: the class's, else 30)")
	f.StringVar(&configFile, "config-file", "", "YAML job file with the task fields; flags override it")
	f.StringVarP(&output, "output", "o", "table", "table, json or yaml")
	for _, ignored := range []string{"image", "pull-policy", "restart-policy", "service-account-name", "results-dir", "label-selector", "scheduler-type", "queue-name"} {
		f.String(ignored, "", "accepted for HyperPod compatibility; not used by the local executor")
		_ = f.MarkHidden(ignored)
	}
	f.Bool("deep-health-check-passed-nodes-only", false, "accepted for HyperPod compatibility")
	_ = f.MarkHidden("deep-health-check-passed-nodes-only")
	return c
}

// mergeSpec copies the flags the user set over the config file's values.
func mergeSpec(dst *model.TaskSpec, flags model.TaskSpec, cmd *cobra.Command) {
	set := cmd.Flags().Changed
	if set("instance-type") {
		dst.InstanceType = flags.InstanceType
	}
	if set("node-count") || dst.Nodes == 0 {
		dst.Nodes = flags.Nodes
	}
	if set("priority") {
		dst.Priority = flags.Priority
	}
	if set("auto-resume") {
		dst.AutoResume = flags.AutoResume
	}
	if set("max-retry") {
		dst.MaxRetry = flags.MaxRetry
	}
	if set("required-topology") {
		dst.RequiredTopology = flags.RequiredTopology
	}
	if set("preferred-topology") {
		dst.PreferredTopology = flags.PreferredTopology
	}
	if set("accelerators") {
		dst.PerNode.GPUs = flags.PerNode.GPUs
	}
	if set("grace-period") {
		dst.GracePeriodSeconds = flags.GracePeriodSeconds
	}
}

func parseEnv(vals []string) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range vals {
		if strings.HasPrefix(strings.TrimSpace(v), "{") {
			if err := json.Unmarshal([]byte(v), &out); err != nil {
				return nil, &model.FieldError{Field: "--environment", Problem: "not a JSON object of strings", Fix: `use '{"KEY": "VALUE"}' or KEY=VALUE`}
			}
			continue
		}
		for _, kv := range strings.Split(v, ",") {
			k, val, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, &model.FieldError{Field: "--environment", Problem: fmt.Sprintf("%q is not KEY=VALUE", kv), Fix: "use KEY=VALUE"}
			}
			out[k] = val
		}
	}
	return out, nil
}

func parseGiB(s string) (float64, error) {
	num := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, "i"), "G"), "Gi")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 {
		return 0, &model.FieldError{Field: "--memory", Problem: fmt.Sprintf("%q is not an amount of memory", s), Fix: "use GiB, e.g. 64 or 64Gi"}
	}
	return v, nil
}

// defaultInstanceType is the team's only quota type, as HyperPod jobs do not
// always name one.
func defaultInstanceType(ctx context.Context, cl *client.Client, team string) (string, error) {
	var teams struct{ Teams []model.Team }
	if err := cl.Do(ctx, "GET", "/api/v1/teams", nil, &teams); err != nil {
		return "", err
	}
	for _, t := range teams.Teams {
		if t.Name == team && len(t.Quotas) == 1 {
			return t.Quotas[0].InstanceType, nil
		}
	}
	return "", &model.FieldError{Field: "--instance-type", Problem: "no instance type given and the team has no single quota type",
		Fix: "pass --instance-type, e.g. ml.p5.48xlarge"}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func listJobsCmd() *cobra.Command {
	var namespace, selector, output string
	var all, pending bool
	c := &cobra.Command{
		Use:   "list-jobs",
		Short: "List jobs; --pending shows queue position and why each waits",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := apiClient()
			if err != nil {
				return err
			}
			team := ""
			if namespace != "" && !all {
				team = teamOf(namespace)
			}
			sel, err := parseSelector(selector)
			if err != nil {
				return err
			}
			var tasks []apitypes.Task
			if pending {
				var q struct{ Pending []apitypes.Task }
				if err := cl.Do(cmd.Context(), "GET", client.Query("/api/v1/queue", "team", team), nil, &q); err != nil {
					return err
				}
				tasks = q.Pending
			} else {
				for after := int64(0); ; {
					var page struct {
						Tasks     []apitypes.Task
						NextAfter int64
					}
					path := client.Query("/api/v1/tasks", "team", team, "state", sel["state"], "limit", "1000", "after", strconv.FormatInt(after, 10))
					if err := cl.Do(cmd.Context(), "GET", path, nil, &page); err != nil {
						return err
					}
					tasks = append(tasks, page.Tasks...)
					if page.NextAfter == 0 {
						break
					}
					after = page.NextAfter
				}
			}
			tasks = filterTasks(tasks, sel)
			if hyperpodMode && output == "json" {
				return printOut(cmd.OutOrStdout(), "json", hyperpodJobs(tasks), nil)
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
						row(tw, t.Name, model.NamespacePrefix+t.Team, t.Position, orDash(t.Spec.Priority), code, strings.TrimPrefix(t.Why, "waiting: "))
					}
					return
				}
				row(tw, "NAME", "NAMESPACE", "STATE", "PRIORITY", "NODES", "INSTANCE TYPE", "AGE", "RESUMES")
				for _, t := range tasks {
					row(tw, t.Name, model.NamespacePrefix+t.Team, t.State, orDash(t.Spec.Priority), t.Spec.Nodes, t.Spec.InstanceType, ago(t.SubmittedAt, now), t.Resumes)
				}
			})
		},
	}
	c.Flags().StringVarP(&namespace, "namespace", "n", "", "one team's namespace (hyperpod-ns-<team>) or team name")
	c.Flags().BoolVarP(&all, "all-namespaces", "A", false, "every team the token may read")
	c.Flags().StringVarP(&selector, "selector", "l", "", "filter: state=Pending,priority=training,instanceType=ml.p5.48xlarge")
	c.Flags().BoolVar(&pending, "pending", false, "show pending jobs in queue order with position and reason")
	c.Flags().StringVarP(&output, "output", "o", defaultOutput(), "table, json or yaml")
	return c
}

func parseSelector(s string) (map[string]string, error) {
	out := map[string]string{}
	if s == "" {
		return out, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok:
			return nil, &model.FieldError{Field: "--selector", Problem: fmt.Sprintf("%q is not key=value", kv), Fix: "use state=, priority=, instanceType= or type="}
		case k != "state" && k != "priority" && k != "instanceType" && k != "type":
			return nil, &model.FieldError{Field: "--selector", Problem: fmt.Sprintf("unknown key %q", k), Fix: "use state, priority, instanceType or type"}
		}
		out[k] = v
	}
	return out, nil
}

func filterTasks(ts []apitypes.Task, sel map[string]string) []apitypes.Task {
	out := ts[:0]
	for _, t := range ts {
		if (sel["state"] == "" || t.State == sel["state"]) && (sel["priority"] == "" || t.Spec.Priority == sel["priority"]) &&
			(sel["instanceType"] == "" || t.Spec.InstanceType == sel["instanceType"]) && (sel["type"] == "" || string(t.Spec.Type) == sel["type"]) {
			out = append(out, t)
		}
	}
	return out
}
