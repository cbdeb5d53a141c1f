package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sim"
)

func simCmd() *cobra.Command {
	c := &cobra.Command{Use: "sim", Short: "Replay traces through the scheduling core in virtual time; compare policies"}
	c.AddCommand(simRunCmd(), simGenCmd(), simCompareCmd(), simKueueCmd(), simExportCmd())
	return c
}

// simInputs are the flags shared by sim run and sim compare.
type simInputs struct {
	cluster, trace, policy, slowdown string
	seed                             int64
	teams                            int
	mtbf, repair, arrivalScale       float64
	ckptOnPreempt                    bool
	clusterScale                     float64
}

func (in *simInputs) add(c *cobra.Command) {
	f := c.Flags()
	f.StringVar(&in.cluster, "cluster", "", "cluster file (not needed with an alibaba: trace)")
	f.StringVar(&in.trace, "trace", "", "trace: a .csv or .jsonl file, or alibaba:DIR for the Alibaba v2023 trace")
	f.StringVar(&in.policy, "policy", "", "policy YAML that replaces the cluster file's policy")
	f.StringVar(&in.slowdown, "slowdown", "", "run-time factors by spread level 0..4, e.g. 1,1,1.05,1.1,1.2")
	f.Int64Var(&in.seed, "seed", 1, "seed (node failures, importer team assignment)")
	f.IntVar(&in.teams, "teams", 6, "teams to assign Alibaba pods to")
	f.Float64Var(&in.mtbf, "node-mtbf-hours", 0, "mean time between node failures (0: none)")
	f.BoolVar(&in.ckptOnPreempt, "checkpoint-on-preempt", false, "jobs with a checkpoint interval also save one in their preemption grace period, losing only the restart cost")
	f.Float64Var(&in.repair, "repair-s", 3600, "seconds a failed node stays down")
	f.Float64Var(&in.arrivalScale, "arrival-scale", 1, "multiply every submit time by this (below 1 compresses the trace to raise the load)")
	f.Float64Var(&in.clusterScale, "cluster-scale", 1, "multiply every node group's size and every count quota by this (at least 1 node each; an alibaba: trace shares the scaled nodes as quota instead)")
}

// load resolves the cluster, trace and options.
func (in *simInputs) load(out io.Writer) (sim.Options, []sim.Job, error) {
	var o sim.Options
	var jobs []sim.Job
	var err error
	if dir, ok := strings.CutPrefix(in.trace, "alibaba:"); ok {
		var st sim.AlibabaStats
		// The importer scales the nodes itself, before it shares them as
		// quota and draws each pod's type (scaleCluster would round every
		// team's quota up to a node, more quota than nodes).
		o.Cluster, jobs, st, err = sim.ImportAlibaba(dir, in.teams, in.seed, in.clusterScale)
		if err != nil {
			return o, nil, err
		}
		fmt.Fprintf(out, "alibaba v2023: %d nodes in %d instance types; %d of %d pods imported (%d without GPU and %d never scheduled left out, %d fractional GPUs rounded up)\n",
			st.Nodes, st.InstanceTypes, st.Imported, st.Pods, st.SkippedCPUOnly, st.SkippedPending, st.FractionalRounds)
	} else {
		if in.trace == "" || in.cluster == "" {
			return o, nil, &model.FieldError{Field: "--trace/--cluster", Problem: "both are needed", Fix: "pass --cluster cluster.yaml --trace trace.csv (or --trace alibaba:DIR)"}
		}
		if o.Cluster, err = config.LoadCluster(in.cluster); err != nil {
			return o, nil, err
		}
		if jobs, err = sim.ReadTrace(in.trace); err != nil {
			return o, nil, err
		}
	}
	if in.cluster != "" && strings.HasPrefix(in.trace, "alibaba:") {
		c, err := config.LoadCluster(in.cluster)
		if err != nil {
			return o, nil, err
		}
		o.Cluster.Policy, o.Cluster.Teams = c.Policy, c.Teams
	}
	if in.policy != "" {
		b, err := os.ReadFile(in.policy)
		if err != nil {
			return o, nil, err
		}
		var p model.Policy
		if err := config.Decode(b, &p); err != nil {
			return o, nil, err
		}
		o.Cluster.Policy = p
	}
	if in.slowdown != "" {
		for _, part := range strings.Split(in.slowdown, ",") {
			f, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
			if err != nil || f <= 0 {
				return o, nil, &model.FieldError{Field: "--slowdown", Problem: fmt.Sprintf("%q is not a positive factor", part), Fix: "use factors like 1,1,1.05,1.1,1.2"}
			}
			o.SlowdownBySpread = append(o.SlowdownBySpread, f)
		}
	}
	if in.arrivalScale <= 0 {
		return o, nil, &model.FieldError{Field: "--arrival-scale", Problem: "must be above 0", Fix: "use e.g. 0.01 to compress arrivals a hundredfold"}
	}
	for i := range jobs {
		jobs[i].SubmitS *= in.arrivalScale
	}
	if in.clusterScale <= 0 {
		return o, nil, &model.FieldError{Field: "--cluster-scale", Problem: "must be above 0", Fix: "use e.g. 0.25 for a quarter of the nodes"}
	}
	if in.clusterScale != 1 && !strings.HasPrefix(in.trace, "alibaba:") {
		before := overPromised(o.Cluster)
		scaleCluster(&o.Cluster, in.clusterScale)
		for _, w := range overPromised(o.Cluster) {
			if !slices.Contains(before, w) {
				fmt.Fprintf(out, "warning: --cluster-scale: %s\n", w)
			}
		}
	}
	o.Seed, o.NodeMTBFHours, o.RepairS = in.seed, in.mtbf, in.repair
	o.CheckpointOnPreempt = in.ckptOnPreempt
	return o, jobs, nil
}

func simRunCmd() *cobra.Command {
	var in simInputs
	var outDir string
	var reasons bool
	var checkEvery int
	c := &cobra.Command{Use: "run", Short: "Replay a trace; write DIR/report.json and a self-contained DIR/report.html", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if outDir == "" {
				return &model.FieldError{Field: "--out", Problem: "no output directory", Fix: "pass --out DIR"}
			}
			o, jobs, err := in.load(cmd.OutOrStdout())
			if err != nil {
				return err
			}
			o.WaitReasons = reasons
			if checkEvery < 0 {
				return &model.FieldError{Field: "--check-invariants", Problem: fmt.Sprintf("%d is negative", checkEvery), Fix: "pass N > 0 to check every N-th cycle, or 0 for never"}
			}
			o.CheckEvery = checkEvery
			r, err := sim.Run(jobs, o)
			if err != nil {
				return err
			}
			if err := writeReport(outDir, "taskgov simulation: "+filepath.Base(in.trace), r); err != nil {
				return err
			}
			summary(cmd.OutOrStdout(), r)
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s\n", filepath.Join(outDir, "report.json"), filepath.Join(outDir, "report.html"))
			return nil
		}}
	in.add(c)
	c.Flags().StringVar(&outDir, "out", "", "directory for report.json, report.html and jobs.csv")
	c.Flags().IntVar(&checkEvery, "check-invariants", 0, "run the core's own consistency check after every N-th cycle (0: never); each placement's room is checked on every cycle regardless")
	c.Flags().BoolVar(&reasons, "wait-reasons", false, "attribute each job's pending time to its wait reasons (jobs.csv, report.json); reads the whole queue after every cycle")
	return c
}

func writeReport(dir, title string, r *sim.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	var jobs bytes.Buffer
	if err := sim.WriteOutcomesCSV(&jobs, r.Jobs); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "jobs.csv"), jobs.Bytes(), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "report.html"))
	if err != nil {
		return err
	}
	defer f.Close()
	return sim.WriteHTML(f, title, r)
}

func summary(w io.Writer, r *sim.Report) {
	fmt.Fprintf(w, "tasks %d/%d completed; makespan %.0f s (bound %.0f); GPU allocation %.1f%% (useful %.1f%%, bound %.1f%%)\n",
		r.Tasks.Completed, r.Tasks.Submitted, r.MakespanS, r.Bounds.MakespanLowerS, 100*r.Utilization.GPUAllocatedMean,
		100*r.Utilization.UsefulMean, 100*r.Utilization.UpperBound)
	fmt.Fprintf(w, "JCT mean %.0f s (bound %.0f), p99 %.0f s; wait mean %.0f s, p99 %.0f s; preemptions %d (%.1f GPU-h lost); Jain %.3f; locality %.3f; %d decisions in %.2f s\n",
		r.JCT.MeanS, r.Bounds.JCTMeanLowerS, r.JCT.P99S, r.Wait.MeanS, r.Wait.P99S, r.Preemptions.Count, r.Preemptions.LostGPUHours,
		r.Fairness.JainWeighted, r.Topology.LocalityOptimality, r.Scheduler.Decisions, r.Scheduler.WallS)
}

func simGenCmd() *cobra.Command {
	var g sim.GenOptions
	var trace, cluster string
	c := &cobra.Command{Use: "gen", Short: "Generate a synthetic trace and its cluster file", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if g.Mix != sim.MixAll && g.Mix != sim.MixNodes {
				return fmt.Errorf("--mix %q: want %s or %s", g.Mix, sim.MixAll, sim.MixNodes)
			}
			if g.Backlog < 0 || g.Backlog > g.Jobs {
				return fmt.Errorf("--backlog %d: want 0 to --jobs (%d)", g.Backlog, g.Jobs)
			}
			cl, jobs := sim.Generate(g)
			if err := sim.WriteTrace(trace, jobs); err != nil {
				return err
			}
			if err := writeClusterFile(cluster, cl); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d jobs to %s and the cluster (%d GPUs, %d teams) to %s\n", len(jobs), trace, g.GPUs, g.Teams, cluster)
			return nil
		}}
	f := c.Flags()
	f.Int64Var(&g.Seed, "seed", 1, "seed")
	f.IntVar(&g.Teams, "teams", 4, "teams")
	f.IntVar(&g.Jobs, "jobs", 1000, "jobs")
	f.IntVar(&g.GPUs, "gpus", 256, "cluster GPUs (ml.p5.48xlarge, 8 per node, three-layer topology)")
	f.Float64Var(&g.Load, "load", 0.8, "offered load")
	f.IntVar(&g.MaxNodes, "max-nodes", 16, "largest gang, in nodes")
	f.IntVar(&g.Backlog, "backlog", 0, "jobs queued at time 0 (the trace's first); the rest arrive at --load after them")
	f.StringVar(&g.Mix, "mix", sim.MixAll, "job sizes: all (1 GPU to 16-node gangs) or nodes (whole-node jobs and 2- and 4-node gangs; keeps a deep backlog by count)")
	f.StringVar(&trace, "trace", "trace.csv", "where to write the trace (.csv, or .jsonl for JSON lines)")
	f.StringVar(&cluster, "cluster", "cluster.yaml", "where to write the cluster file")
	return c
}

// overPromised names the instance types whose teams' count quotas add up to
// more nodes than the type has: rule 1 cannot guarantee them all, so tasks
// there wait for other teams' work within quota, whatever their class.
// Scaling rounds each quota to at least a node, which can do this.
func overPromised(c model.Cluster) []string {
	nodes := map[string]int64{}
	for _, g := range c.NodeGroups {
		nodes[g.InstanceType] += int64(g.Count)
	}
	quota := map[string]int64{}
	for _, t := range c.Teams {
		for _, q := range t.Quotas {
			if q.Count != nil {
				quota[q.InstanceType] += *q.Count
			}
		}
	}
	var out []string
	for it, q := range quota {
		if n := nodes[it]; q > n {
			out = append(out, fmt.Sprintf("the teams' quotas of %s add up to %d nodes, more than its %d: within-quota tasks there are not all guaranteed", it, q, n))
		}
	}
	slices.Sort(out)
	return out
}

// scaleCluster shrinks or grows node groups and count quotas by f, keeping
// at least one node per group; a team keeps a nonzero quota where it had one.
func scaleCluster(c *model.Cluster, f float64) {
	scale := func(n int64) int64 {
		if n == 0 {
			return 0
		}
		return max(1, int64(float64(n)*f+0.5))
	}
	for i := range c.NodeGroups {
		c.NodeGroups[i].Count = int(scale(int64(c.NodeGroups[i].Count)))
	}
	for i := range c.Teams {
		for k, q := range c.Teams[i].Quotas {
			if q.Count != nil {
				v := scale(*q.Count)
				c.Teams[i].Quotas[k].Count = &v
			}
		}
	}
}

// writeClusterFile writes c as a cluster file (YAML).
func writeClusterFile(path string, c model.Cluster) error {
	b, err := yaml.Marshal(c)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
