package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/model"
)

// jobFlags are the flags that name one job.
type jobFlags struct{ name, namespace string }

func (j *jobFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&j.name, "job-name", "", "the job's name")
	c.Flags().StringVar(&j.name, "name", "", "alias of --job-name")
	c.Flags().StringVarP(&j.namespace, "namespace", "n", "", "the job's namespace: a team's namespace (hyperpod-ns-<team>) or team name")
}

func (j *jobFlags) required() error {
	if j.name == "" && linkedCLI() {
		return clickMissingOption("--job-name")
	}
	if j.name == "" {
		return &model.FieldError{Field: "--job-name", Problem: "no job named", Fix: "pass --job-name NAME"}
	}
	return nil
}

// startFlags are start-job's flags: HyperPod v2's, plus taskgov's own.
type startFlags struct {
	job                                    jobFlags
	spec                                   model.TaskSpec
	cmd                                    jobCommand
	preScript, postScript                  string
	configFile, output, memory, selector   string
	queue, jobKind, recipe, overrides      string
	env                                    []string
	tasksPerNode                           int
	vcpu                                   float64
	deepHealth, debug                      bool
	pullPolicy, restartPolicy, scheduler   string
	serviceAccount, resultsDir, pvcs, vols string
}

func startJobCmd() *cobra.Command {
	var sf startFlags
	c := &cobra.Command{
		Use:   "start-job",
		Short: "Submit a job (HyperPod's flags; --config-file takes HyperPod's Hydra job YAML or a taskgov task YAML)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return sf.run(cmd) },
	}
	sf.job.add(c)
	s := &sf.spec
	f := c.Flags()
	f.StringVar(&s.InstanceType, "instance-type", "", "instance type, e.g. ml.p5.48xlarge (default: the team's only quota type)")
	f.IntVar(&s.Nodes, "node-count", 1, "number of nodes (one pod per node)")
	f.IntVar(&sf.tasksPerNode, "tasks-per-node", 0, "processes per node, passed to the job as NPROC_PER_NODE")
	f.StringVar(&s.Priority, "priority", "", "priority class (HyperPod's <class>-priority names are understood)")
	f.StringVar(&sf.queue, "queue-name", "", "the team's queue, <namespace>-localqueue (implies the team)")
	f.StringVar(&sf.cmd.command, "command", "", "command that runs the entry script (HyperPod: torchrun), or a whole command line (through sh -c)")
	f.StringVar(&sf.cmd.entry, "entry-script", "", "script to run: `command entry-script script-args` (without --command a .py script runs with python3)")
	f.StringVar(&sf.cmd.args, "script-args", "", "arguments for the entry script or command")
	f.StringVar(&sf.preScript, "pre-script", "", "commands to run before the job, separated by ',' or ';'")
	f.StringVar(&sf.postScript, "post-script", "", "commands to run after the job, separated by ',' or ';'")
	f.StringArrayVar(&sf.env, "environment", nil, "environment: KEY=VALUE (repeatable or comma-separated) or a JSON object")
	f.StringVar(&s.Image, "image", "", "container image (the Kubernetes executor runs it; the local executor runs the command on the host)")
	f.BoolVar(&s.AutoResume, "auto-resume", false, "requeue after a failure, up to --max-retry times (takes true/false, or bare)")
	f.IntVar(&s.MaxRetry, "max-retry", 0, "retries with --auto-resume (default 1 with it)")
	f.StringVar(&s.RequiredTopology, "required-topology", "", "topology label all pods must share, e.g. topology.k8s.aws/network-node-layer-3")
	f.StringVar(&s.PreferredTopology, "preferred-topology", "", "topology label to try first")
	f.Int64Var(&s.PerNode.GPUs, "accelerators", 0, "GPUs per node for a partial node (default: whole nodes)")
	f.Float64Var(&sf.vcpu, "vcpu", 0, "vCPU per node for a partial node")
	f.StringVar(&sf.memory, "memory", "", "memory per node for a partial node, e.g. 64Gi")
	f.BoolVar(&s.ResumeCheckpoints, "resume-checkpoints", false, "taskgov's: a job reusing a finished job's name starts from the checkpoints that job left (default: an empty checkpoint directory)")
	f.IntVar(&s.GracePeriodSeconds, "grace-period", 0, "seconds between SIGTERM and SIGKILL on preemption (default: the class's, else 30)")
	f.StringVar(&sf.configFile, "config-file", "", "HyperPod's Hydra job YAML, or a taskgov task YAML; flags override it")
	f.StringVarP(&sf.output, "output", "o", defaultOutput(), "table, json or yaml")
	f.StringVar(&sf.selector, "label-selector", "", "JSON node selector; only instance-type and health labels are honoured")
	f.BoolVar(&sf.deepHealth, "deep-health-check-passed-nodes-only", false, "accepted: taskgov places only on healthy nodes (takes true/false, or bare)")
	f.StringVar(&sf.jobKind, "job-kind", "kubeflow/PyTorchJob", "job kind; only kubeflow/PyTorchJob")
	f.StringVar(&sf.recipe, "recipe", "", "refused: taskgov does not run HyperPod recipes")
	f.StringVar(&sf.overrides, "override-parameters", "", "refused with --recipe")
	f.StringVar(&sf.pullPolicy, "pull-policy", "IfNotPresent", "Always, IfNotPresent or Never (Kubernetes executor)")
	f.StringVar(&sf.restartPolicy, "restart-policy", "OnFailure", "OnFailure (taskgov requeues with --auto-resume)")
	f.StringVar(&sf.scheduler, "scheduler-type", "SageMaker", "accepted: taskgov is the scheduler")
	f.StringVar(&sf.serviceAccount, "service-account-name", "", "not used by taskgov's executors")
	f.StringVar(&sf.resultsDir, "results-dir", "./results", "not used: checkpoints go to $TASKGOV_CHECKPOINT_DIR")
	f.StringVar(&sf.pvcs, "persistent-volume-claims", "", "not used: taskgov's executors mount no volumes")
	f.StringVar(&sf.vols, "volumes", "", "not used: taskgov's executors mount no volumes")
	f.BoolVar(&sf.debug, "debug", false, "accepted (errors are always shown in full)")
	return c
}

func (sf *startFlags) run(cmd *cobra.Command) error {
	ctx, set, errw := cmd.Context(), cmd.Flags().Changed, cmd.ErrOrStderr()
	if err := checkOutput(sf.output, "table", "json", "yaml"); err != nil {
		return err
	}
	// start-job's choice options, as HyperPod's v2 CLI lists them.
	for _, c := range []struct {
		flag, value string
		allowed     []string
	}{{"pull-policy", sf.pullPolicy, []string{"Always", "IfNotPresent", "Never"}},
		{"restart-policy", sf.restartPolicy, []string{"Always", "OnFailure", "Never", "ExitCode"}},
		{"scheduler-type", sf.scheduler, []string{"Kueue", "SageMaker", "None"}}} {
		if err := checkChoice(c.flag, c.value, c.allowed...); err != nil {
			return err
		}
	}
	if sf.recipe != "" || sf.overrides != "" {
		return &model.FieldError{Field: "--recipe", Problem: "taskgov does not run HyperPod recipes (a Hydra launcher over NeMo/HF recipes)",
			Fix: "run the recipe's training command as a job: start-job --command \"torchrun ...\" --entry-script SCRIPT --script-args \"...\""}
	}
	if sf.jobKind != "kubeflow/PyTorchJob" {
		return &model.FieldError{Field: "--job-kind", Problem: fmt.Sprintf("%q is not supported", sf.jobKind), Fix: "use kubeflow/PyTorchJob (the default)"}
	}
	s := sf.spec
	if set("pull-policy") {
		s.ImagePullPolicy = sf.pullPolicy // unset, the cluster's default (the flag's is HyperPod's)
	}
	if sf.configFile != "" {
		b, err := os.ReadFile(sf.configFile)
		if err != nil {
			return &model.FieldError{Field: "--config-file", Problem: fmt.Sprintf("configuration file %s cannot be read: %v", sf.configFile, errors.Unwrap(err)),
				Fix: "give the path of HyperPod's job YAML (or a taskgov task YAML)"}
		}
		var fromFile model.TaskSpec
		if isHydra(b) {
			h, err := hydraJob(b, errw)
			if err != nil {
				return err
			}
			fromFile = h.spec
			if !set("namespace") {
				sf.job.namespace = h.namespace
			}
			if !set("queue-name") {
				sf.queue = h.queue
			}
			if !set("command") && !set("entry-script") {
				sf.cmd = h.cmd
			}
		} else {
			dec := yaml.NewDecoder(bytes.NewReader(b))
			dec.KnownFields(true)
			if err := dec.Decode(&fromFile); err != nil {
				return &model.FieldError{Field: "--config-file", Problem: config.Describe(b, &fromFile, err),
					Fix: "use HyperPod's Hydra job YAML (training_cfg, cluster, container) or the task fields of docs/SCHEDULING.md"}
			}
			if !set("namespace") && fromFile.Team != "" {
				sf.job.namespace = fromFile.Team
			}
		}
		mergeSpec(&fromFile, s, cmd)
		s = fromFile
	}
	if sf.job.name != "" {
		s.Name = sf.job.name
	}
	if sf.selector != "" {
		it, err := labelSelector(sf.selector)
		if err != nil {
			return err
		}
		if it != "" && s.InstanceType == "" {
			s.InstanceType = it
		}
	}
	sf.cmd.pre, sf.cmd.post = splitScripts(sf.preScript), splitScripts(sf.postScript)
	if len(s.Command) == 0 || set("command") || set("entry-script") || set("script-args") {
		cmdline, err := sf.cmd.build()
		if err != nil {
			return err
		}
		s.Command = cmdline
	}
	if sf.memory != "" {
		gib, err := parseGiB(sf.memory)
		if err != nil {
			return err
		}
		s.PerNode.MemoryGiB = gib
	}
	if sf.vcpu > 0 {
		s.PerNode.VCPU = sf.vcpu
	}
	if len(sf.env) > 0 {
		vars, err := parseEnv(sf.env)
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
	if sf.tasksPerNode > 0 {
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env["NPROC_PER_NODE"] = strconv.Itoa(sf.tasksPerNode)
	}
	if s.AutoResume && s.MaxRetry == 0 {
		s.MaxRetry = 1 // HyperPod's default with auto-resume
	}
	for _, u := range []struct{ flag, why string }{
		{"service-account-name", "taskgov's pods run with the namespace's default service account"},
		{"results-dir", "checkpoints go to $TASKGOV_CHECKPOINT_DIR"},
		{"persistent-volume-claims", "taskgov's executors mount no volumes"},
		{"volumes", "taskgov's executors mount no volumes"},
	} {
		if set(u.flag) {
			notUsed(errw, "--"+u.flag, u.why)
		}
	}
	relativePathNote(errw, s.Command)
	cl, err := apiClient()
	if err != nil {
		return err
	}
	r := newResolver(cl)
	if s.Team, err = r.jobTeam(ctx, sf.job.namespace, sf.queue); err != nil {
		return err
	}
	if s.Priority, err = priorityClass(ctx, cl, s.Priority); err != nil {
		return err
	}
	if s.InstanceType == "" {
		if s.InstanceType, err = defaultInstanceType(r, s.Team); err != nil {
			return err
		}
	}
	t, err := cl.SubmitKeyed(ctx, s, client.NewIdempotencyKey()) // one key per command; its retries reuse it
	if err != nil {
		return err
	}
	if hyperpodMode && sf.output == "json" {
		return writeIndented(cmd.OutOrStdout(), map[string]string{"Console URL": consoleURL(cl, t.Name)}, 1)
	}
	return printOut(cmd.OutOrStdout(), sf.output, t, func(tw *tabwriter.Writer) {
		row(tw, "NAME", "NAMESPACE", "STATE", "PRIORITY")
		row(tw, t.Name, r.namespaceOf(t.Team), t.State, orDash(t.Spec.Priority))
	})
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
	if set("image") {
		dst.Image = flags.Image
	}
	if set("pull-policy") {
		dst.ImagePullPolicy = flags.ImagePullPolicy
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
	if set("resume-checkpoints") {
		dst.ResumeCheckpoints = flags.ResumeCheckpoints
	}
}

// defaultInstanceType is the team's only quota type, as HyperPod jobs do not
// always name one.
func defaultInstanceType(r *resolver, team string) (string, error) {
	for _, t := range r.teams {
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
