package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

// hypCreate holds `hyp create hyp-pytorch-job`'s options: those of
// HyperPod's PyTorch job template (schema 1.0 and 1.1).
type hypCreate struct {
	version, name, image, namespace, command, args, env, pullPolicy, instanceType string
	tasksPerNode, labelSelector, scheduler, queue, priority, serviceAccount       string
	preferred, required, partitionType, discrete                                  string
	nodeCount, replicaCount, accelerators, accelLimit, maxRetry, efa, efaLimit    int
	partitionCount, partitionLimit, maxNodes, maxReplicas, step                   int
	shutdownTimeout, scalingTimeout, snooze                                       int
	vcpu, memory, vcpuLimit, memoryLimit                                          float64
	deepHealth, debug, fromConfig                                                 bool
	volumes                                                                       []string
}

func hypCreateCmd() *cobra.Command {
	c, _ := newHypCreate()
	return c
}

// newHypCreate is `hyp create hyp-pytorch-job` and the options its flags
// fill (`hyp create` from config.yaml parses its fields with them).
func newHypCreate() (*cobra.Command, *hypCreate) {
	h := &hypCreate{}
	c := &cobra.Command{Short: "Create a PyTorch job", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return h.run(cmd) }}
	f := c.Flags()
	// hyp takes the newest schema unless --version names another, and
	// prints the one it took ("Using version: 1.1").
	f.StringVar(&h.version, "version", "1.1", "schema version: 1.1, or 1.0 (without the 1.1 options)")
	f.BoolVar(&h.debug, "debug", false, "accepted")
	f.StringVar(&h.name, "job-name", "", "job name (required)")
	f.StringVar(&h.image, "image", "", "container image (the Kubernetes executor runs it; without --command, the local executor runs the program its cluster file's images: maps it to)")
	f.StringVarP(&h.namespace, "namespace", "n", "", "the team's namespace (default: the login's, or the token's only team)")
	f.StringVar(&h.command, "command", "", "command as a list, e.g. '[python, train.py]'; without it the image's entrypoint runs (a local-executor server runs it only for an image its cluster file maps)")
	f.StringVar(&h.args, "args", "", "arguments as a list, e.g. '[--epochs=10]', after the command or the image's entrypoint")
	f.StringVar(&h.env, "environment", "", `environment as a JSON object, e.g. '{"VAR": "x"}'`)
	f.StringVar(&h.pullPolicy, "pull-policy", "", "Always, IfNotPresent or Never (Kubernetes executor)")
	f.StringVar(&h.instanceType, "instance-type", "", "instance type (default: the team's only quota type)")
	f.IntVar(&h.nodeCount, "node-count", 0, "whole nodes (not with --accelerators, --vcpu, --memory)")
	f.IntVar(&h.replicaCount, "replica-count", 0, "pods (replicas), one per node")
	f.StringVar(&h.tasksPerNode, "tasks-per-node", "auto", "processes per node, passed as NPROC_PER_NODE")
	f.StringVar(&h.labelSelector, "label-selector", "", "JSON node selector; only instance-type and health labels are honoured")
	f.BoolVar(&h.deepHealth, "deep-health-check-passed-nodes-only", false, "accepted: taskgov places only on healthy nodes (takes true/false)")
	f.StringVar(&h.scheduler, "scheduler-type", "", "accepted: taskgov is the scheduler")
	f.StringVar(&h.queue, "queue-name", "", "the team's queue, <namespace>-localqueue (implies the team)")
	f.StringVar(&h.priority, "priority", "", "priority class (<class>-priority names are understood)")
	f.IntVar(&h.accelerators, "accelerators", 0, "GPUs per pod")
	f.Float64Var(&h.vcpu, "vcpu", 0, "vCPU per pod")
	f.Float64Var(&h.memory, "memory", 0, "memory per pod, GiB")
	f.IntVar(&h.accelLimit, "accelerators-limit", 0, "must equal --accelerators: taskgov's requests are its limits")
	f.Float64Var(&h.vcpuLimit, "vcpu-limit", 0, "must equal --vcpu")
	f.Float64Var(&h.memoryLimit, "memory-limit", 0, "must equal --memory")
	f.IntVar(&h.efa, "efa", 0, "accepted: EFA interfaces are not scheduled")
	f.IntVar(&h.efaLimit, "efa-limit", 0, "accepted: EFA interfaces are not scheduled")
	f.StringVar(&h.partitionType, "accelerator-partition-type", "", "refused: taskgov does not schedule GPU partitions (MIG)")
	f.IntVar(&h.partitionCount, "accelerator-partition-count", 0, "refused with --accelerator-partition-type")
	f.IntVar(&h.partitionLimit, "accelerator-partition-limit", 0, "refused with --accelerator-partition-type")
	f.IntVar(&h.maxRetry, "max-retry", 0, "retries after a failure (requeued)")
	f.StringArrayVar(&h.volumes, "volume", nil, "accepted: taskgov's executors mount no volumes")
	f.StringVar(&h.serviceAccount, "service-account-name", "", "accepted: not used")
	f.StringVar(&h.preferred, "preferred-topology", "", "topology label to try first")
	f.StringVar(&h.required, "required-topology", "", "topology label all pods must share (may be given with --preferred-topology)")
	for _, e := range []struct {
		p    *int
		name string
	}{{&h.step, "elastic-replica-increment-step"}, {&h.maxNodes, "max-node-count"}, {&h.maxReplicas, "max-replica-count"},
		{&h.shutdownTimeout, "elastic-graceful-shutdown-timeout-in-seconds"}, {&h.scalingTimeout, "elastic-scaling-timeout-in-seconds"},
		{&h.snooze, "elastic-scale-up-snooze-time-in-seconds"}} {
		f.IntVar(e.p, e.name, 0, "refused: taskgov runs gangs of a fixed size (no elastic training)")
	}
	f.StringVar(&h.discrete, "elastic-replica-discrete-values", "", "refused: no elastic training")
	return c, h
}

// hypList parses hyp's list options: '[a, b]' or 'a, b'.
func hypList(s string) []string {
	var out []string
	for _, it := range strings.Split(strings.Trim(strings.TrimSpace(s), "[]"), ",") {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

func (h *hypCreate) spec(cmd *cobra.Command) (model.TaskSpec, error) {
	set, errw := cmd.Flags().Changed, cmd.ErrOrStderr()
	if h.name == "" {
		return model.TaskSpec{}, clickMissingOption("--job-name")
	}
	// hyp requires an image (the local executor runs the command on the
	// host, or without one the program its cluster file maps the image
	// to), and a count it is given of at least one.
	if h.image == "" {
		return model.TaskSpec{}, clickMissingOption("--image")
	}
	var problems []string
	for _, f := range hypFields {
		if !set(f.flag()) {
			continue
		}
		var v any = cmd.Flags().Lookup(f.flag()).Value.String()
		if n, err := strconv.Atoi(v.(string)); err == nil && f.kind == kInt {
			v = n
		}
		if p := hypFieldProblem(f.key, v); p != "" {
			problems = append(problems, f.key+": "+p)
		}
	}
	if len(problems) > 0 {
		return model.TaskSpec{}, &usageError{"❌ Configuration validation errors:\n  – " + strings.Join(problems, "\n  – ")}
	}
	if h.version != "1.0" && h.version != "1.1" {
		return model.TaskSpec{}, unsupportedSchema(h.version, "taskgov serves --version 1.0 and 1.1")
	}
	if h.version == "1.0" {
		// hyp builds its options from the schema version's fields: under
		// --version 1.0 a 1.1 option does not exist.
		for _, f := range hypFields {
			if f.v11 && set(f.flag()) {
				return model.TaskSpec{}, &usageError{fmt.Sprintf("No such option: --%s (schema 1.0 has no %s: pass --version 1.1, or leave --version out)", f.flag(), f.key)}
			}
		}
	}
	for _, e := range []string{"elastic-replica-increment-step", "max-node-count", "max-replica-count", "elastic-graceful-shutdown-timeout-in-seconds",
		"elastic-scaling-timeout-in-seconds", "elastic-scale-up-snooze-time-in-seconds", "elastic-replica-discrete-values"} {
		if set(e) {
			return model.TaskSpec{}, &model.FieldError{Field: "--" + e, Problem: "taskgov runs gangs of a fixed size: no elastic training",
				Fix: "drop the elastic options; --node-count or --replica-count is the gang"}
		}
	}
	if h.partitionType != "" || set("accelerator-partition-count") || set("accelerator-partition-limit") {
		return model.TaskSpec{}, &model.FieldError{Field: "--accelerator-partition-type", Problem: "taskgov does not schedule GPU partitions (MIG)",
			Fix: "ask for whole GPUs with --accelerators"}
	}
	if set("node-count") && set("replica-count") {
		return model.TaskSpec{}, &usageError{"Only one of 'replica_count' or 'node_count' can be specified, not both."}
	}
	if set("node-count") && (h.accelerators > 0 || h.vcpu > 0 || h.memory > 0 || h.accelLimit > 0 || h.vcpuLimit > 0 || h.memoryLimit > 0) {
		return model.TaskSpec{}, &usageError{"node_count cannot be combined with resource fields (accelerators, vcpu, memory). Use replica_count instead to specify replicas with granular resources."}
	}
	for _, l := range []struct {
		flag         string
		req, limit   float64
		reqFlag      string
		limitChanged bool
	}{{"--accelerators-limit", float64(h.accelerators), float64(h.accelLimit), "--accelerators", set("accelerators-limit")},
		{"--vcpu-limit", h.vcpu, h.vcpuLimit, "--vcpu", set("vcpu-limit")}, {"--memory-limit", h.memory, h.memoryLimit, "--memory", set("memory-limit")}} {
		if l.limitChanged && l.limit != l.req {
			return model.TaskSpec{}, &model.FieldError{Field: l.flag, Problem: fmt.Sprintf("is %g but %s is %g: taskgov reserves what a pod asks for, so its limit is its request", l.limit, l.reqFlag, l.req),
				Fix: "give the same value, or drop " + l.flag}
		}
	}
	s := model.TaskSpec{Name: h.name, Image: h.image, ImagePullPolicy: h.pullPolicy, InstanceType: h.instanceType, Priority: h.priority,
		RequiredTopology: h.required, PreferredTopology: h.preferred, MaxRetry: h.maxRetry, AutoResume: h.maxRetry > 0,
		PerNode: model.Request{GPUs: int64(h.accelerators), VCPU: h.vcpu, MemoryGiB: h.memory}}
	s.Nodes = max(h.nodeCount, h.replicaCount, 1)
	// Without --command the pod runs the image's entrypoint with --args
	// (a container's command and args); whether this server can is the
	// server's to say (a local executor runs only images its cluster file
	// maps, and refuses others at submission).
	if command := hypList(h.command); len(command) > 0 {
		s.Command = append(command, hypList(h.args)...)
	} else {
		s.Args = hypList(h.args)
	}
	relativePathNote(errw, append(append([]string{}, s.Command...), s.Args...))
	if h.env != "" {
		var obj map[string]any
		if err := json.Unmarshal([]byte(h.env), &obj); err != nil {
			return s, &usageError{fmt.Sprintf("Invalid value for '--environment': 'environment' must be valid JSON: %v; e.g. '{\"VAR1\": \"foo\", \"VAR2\": \"bar\"}'", err)}
		}
		env, err := parseEnv([]string{h.env})
		if err != nil {
			return s, err
		}
		s.Env = env
	}
	// hyp's nprocPerNode: "auto" (its default, and taskgov's when
	// NPROC_PER_NODE is unset), "gpu", "cpu" or a count, kept as given
	// in NPROC_PER_NODE (torchrun's --nproc-per-node takes all four).
	if tpn := strings.ToLower(h.tasksPerNode); tpn != "" && tpn != "auto" { // checked above (hypFieldProblem)
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env["NPROC_PER_NODE"] = tpn
	}
	if h.labelSelector != "" {
		it, err := labelSelector(h.labelSelector)
		if err != nil {
			return s, err
		}
		if s.InstanceType == "" {
			s.InstanceType = it
		}
	}
	if len(h.volumes) > 0 {
		notUsed(errw, "--volume", "taskgov's executors mount no volumes")
	}
	if h.efa > 0 || h.efaLimit > 0 {
		notUsed(errw, "--efa", "taskgov does not schedule EFA interfaces")
	}
	if h.serviceAccount != "" {
		notUsed(errw, "--service-account-name", "taskgov's pods run with the namespace's default service account")
	}
	return s, nil
}

func (h *hypCreate) run(cmd *cobra.Command) error {
	ctx := cmd.Context()
	s, err := h.spec(cmd)
	if err != nil {
		return err
	}
	cl, err := apiClient()
	if err != nil {
		return err
	}
	r := newResolver(cl)
	if s.Team, err = h.team(ctx, cmd, r, s.InstanceType); err != nil {
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
	out := cmd.OutOrStdout()
	if !h.fromConfig {
		fmt.Fprintf(out, "Using version: %s\n", h.version)
	}
	if _, err := cl.SubmitKeyed(ctx, s, client.NewIdempotencyKey()); err != nil { // one key per command; its retries reuse it
		return hypSubmitFailure(cmd.ErrOrStderr(), s.Name, err)
	}
	fmt.Fprintf(out, "Successfully submitted HyperPodPytorchJob '%s'!\n", s.Name)
	return nil
}

// team is the job's team from --namespace and --queue-name. hyp creates in
// namespace "default" without asking: when that names no team (a token of
// several teams, nothing saved), the job goes to the only team with a
// quota of its type (resolver.submitTeam), named on stderr; with several,
// it is refused naming their namespaces.
func (h *hypCreate) team(ctx context.Context, cmd *cobra.Command, r *resolver, instanceType string) (string, error) {
	if h.queue != "" || !isDefaultNamespace(h.namespace) {
		return r.jobTeam(ctx, h.namespace, h.queue)
	}
	team, ok, err := r.defaultTeam(ctx)
	if err != nil || ok {
		return team, err
	}
	team, candidates, ok := r.submitTeam(instanceType)
	if !ok {
		namespaces := make([]string, len(candidates))
		for i, c := range candidates {
			namespaces[i] = r.namespaceOf(c)
		}
		return "", &model.FieldError{Field: "--namespace",
			Problem: fmt.Sprintf("no namespace given, and this token may submit to %d teams with a quota%s: %s", len(candidates), forType(instanceType), strings.Join(namespaces, ", ")),
			Fix:     "pass --namespace with one of them, or save one with `hyp set-cluster-context --cluster-name C --namespace NS`"}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "note: no namespace given: the job goes to team %s (namespace %s), the only team with a quota%s; pass -n NAMESPACE to choose\n",
		team, r.namespaceOf(team), forType(instanceType))
	return team, nil
}

// hypDescribe prints a job as `hyp describe hyp-pytorch-job` does.
func hypDescribe(w interface{ Write([]byte) (int, error) }, r *resolver, t apitypes.Task) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	labels := jobLabels(r, t)
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var lp []string
	for _, k := range keys {
		lp = append(lp, fmt.Sprintf("'%s': '%s'", k, labels[k]))
	}
	p("\nJob Details:")
	p("%s", strings.Repeat("=", 80))
	p("Name:           %s", t.Name)
	p("Namespace:      %s", r.namespaceOf(t.Team))
	p("Labels:         {%s}", strings.Join(lp, ", "))
	p("Annotations:    None")
	p("\nSpec:")
	p("%s", strings.Repeat("-", 80))
	// hyp's --tasks-per-node defaults to "auto", its template's
	// nprocPerNode; any other value is kept in NPROC_PER_NODE.
	p("Processes per Node: %s", cmp.Or(t.Spec.Env["NPROC_PER_NODE"], "auto"))
	p("\nReplica Spec:")
	p("  Name:     pod")
	p("  Replicas: %d", max(t.Spec.Nodes, 1))
	p("  Spares:   N/A")
	p("\n  Container:")
	p("    Name:            pytorch-job-container")
	p("    Image:           %s", orNA(t.Spec.Image))
	p("    Image Pull Policy: %s", orNA(t.Spec.ImagePullPolicy))
	p("    Resources:")
	req := fmt.Sprintf("{'nvidia.com/gpu': '%d'}", t.Spec.PerNode.GPUs)
	if t.Spec.PerNode.WholeNode() {
		req = "{'node': 'whole'}"
	}
	p("      Limits:   %s", req)
	p("      Requests: %s", req)
	p("\nRun Policy:")
	p("%s", strings.Repeat("-", 80))
	p("Clean Pod Policy:          None")
	p("TTL Seconds After Finished: N/A")
	p("\nStatus:")
	p("%s", strings.Repeat("-", 80))
	p("Conditions:")
	for _, c := range jobConditions(t) {
		p("  Type:               %s", c.Type)
		p("  Status:             %s", c.Status)
		p("  Last Transition:    %s", c.LastTransitionTime)
		if c.Message != "" {
			p("  Message:            %s", c.Message)
		}
		p("")
	}
}

// forType is " of T" for an instance type T, "" for none.
func forType(instanceType string) string {
	if instanceType == "" {
		return ""
	}
	return " of " + instanceType
}

func orNA(s string) string {
	if s == "" {
		return "N/A"
	}
	return s
}

// hypOperatorLogsCmd is hyp's get-operator-logs: taskgov has no training
// operator; its scheduler's decisions are task events, so it prints the
// events of the jobs submitted within the window, oldest first.
func hypOperatorLogsCmd() *cobra.Command {
	var hours float64
	c := &cobra.Command{Short: "The scheduler's decisions (task events) of the last --since-hours", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("since-hours") {
				return clickMissingOption("--since-hours")
			}
			ctx := cmd.Context()
			cl, err := apiClient()
			if err != nil {
				return err
			}
			since := time.Now().Add(-time.Duration(hours * float64(time.Hour)))
			ts, err := cl.Tasks(ctx, client.TaskQuery{Since: since})
			if err != nil {
				return err
			}
			var lines []client.Event
			seen := map[string]bool{}
			for _, t := range ts {
				// A reused name lists one task per submission, and its
				// events are read once: the name's latest task's.
				if seen[t.Name] {
					continue
				}
				seen[t.Name] = true
				evs, err := cl.TaskEvents(ctx, t.Name)
				if err != nil {
					return err
				}
				for _, e := range evs {
					if !e.At.Before(since) {
						lines = append(lines, e)
					}
				}
			}
			sort.SliceStable(lines, func(a, b int) bool { return lines[a].At.Before(lines[b].At) })
			var b strings.Builder
			for _, e := range lines {
				fmt.Fprintf(&b, "%s %s/%s %s: %s\n", e.At.UTC().Format(time.RFC3339), e.Team, e.Task, e.Kind, e.Message)
			}
			formattedLogs(cmd.OutOrStdout(), b.String(), "PyTorch Operator Logs")
			return nil
		}}
	c.Flags().Float64Var(&hours, "since-hours", 0, "the time frame, hours (required)")
	return c
}
