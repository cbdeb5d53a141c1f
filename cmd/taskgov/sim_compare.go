package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sim"
)

// variant is one policy of a comparison.
type variant struct {
	Name   string
	Change func(p *model.Policy)
	// Teams, if set, changes every team too.
	Teams func(t *model.Team)
}

var variants = []variant{
	{"as configured", func(p *model.Policy) {}, nil},
	{"FirstComeFirstServe tasks", func(p *model.Policy) { p.TaskPrioritization = model.FirstComeFirstServe }, nil},
	{"TaskRanking tasks", func(p *model.Policy) { p.TaskPrioritization = model.TaskRanking }, nil},
	{"idle compute FCFS", func(p *model.Policy) { p.IdleComputeAllocation = model.IdleFirstComeFirstServe }, nil},
	{"fair share, no rebalance", func(p *model.Policy) {
		p.IdleComputeAllocation = model.FairShare
		p.FairShareRebalance = new(bool)
	}, nil},
	{"victims: most recently started", func(p *model.Policy) { p.VictimOrder = model.MostRecentlyStarted }, nil},
	// Preemption waits for room to free first: on a busy cluster most
	// preemptions are avoided by waiting minutes (docs/SIMULATOR.md).
	{"preemption delay 10 min", func(p *model.Policy) { p.PreemptionDelaySeconds = 600 }, nil},
	{"preemption immediate", func(p *model.Policy) { p.Preemption = model.PreemptImmediate }, nil},
	// The throughput baseline governance must not lose to: tasks in
	// submission order, idle compute first come first served, and no
	// preemption of any kind (no reclaim either).
	{"FCFS, no preemption", func(p *model.Policy) {
		p.TaskPrioritization = model.FirstComeFirstServe
		p.IdleComputeAllocation = model.IdleFirstComeFirstServe
		p.FairShareRebalance = new(bool)
	}, func(t *model.Team) {
		t.PreemptTeamTasks = model.PreemptNever
		t.ReclaimWithinGroup = model.ReclaimNever
	}},
}

// candidateVariants are the cluster's own policy and each candidate policy
// file, named by its file name.
func candidateVariants(files []string) ([]variant, error) {
	out := []variant{variants[0]}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var cand model.Policy
		if err := config.Decode(b, &cand); err != nil {
			return nil, fmt.Errorf("--candidate %s: %w", f, err)
		}
		out = append(out, variant{filepath.Base(f), func(p *model.Policy) { *p = cand }, nil})
	}
	return out, nil
}

func simCompareCmd() *cobra.Command {
	var in simInputs
	var outDir string
	var candidates []string
	c := &cobra.Command{Use: "compare", Short: "Replay one trace under several policies and print a side-by-side table", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, jobs, err := in.load(cmd.OutOrStdout())
			if err != nil {
				return err
			}
			vs := variants
			if len(candidates) > 0 {
				if vs, err = candidateVariants(candidates); err != nil {
					return err
				}
			}
			reports, err := runVariants(o, jobs, vs)
			if err != nil {
				return err
			}
			names := make([]string, len(vs))
			for i, v := range vs {
				names[i] = v.Name
			}
			table := compareTable(names, reports, o.Cluster.Policy.PriorityClasses)
			fmt.Fprint(cmd.OutOrStdout(), table)
			if outDir != "" {
				if err := os.MkdirAll(outDir, 0o755); err != nil {
					return err
				}
				named := map[string]*sim.Report{}
				for i, name := range names {
					named[name] = reports[i]
				}
				b, _ := json.MarshalIndent(named, "", "  ")
				if err := os.WriteFile(filepath.Join(outDir, "compare.json"), b, 0o644); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(outDir, "compare.md"), []byte(table), 0o644)
			}
			return nil
		}}
	in.add(c)
	c.Flags().StringVar(&outDir, "out", "", "also write compare.json and compare.md here")
	c.Flags().StringArrayVar(&candidates, "candidate", nil, "a whole policy YAML (priority classes included) to compare with the cluster's own; repeatable; replaces the built-in variations")
	return c
}

// compareTable renders the reports as one Markdown table, a column each. The
// mean wait of each priority class follows the overall wait, highest weight
// first (classes are what task ranking trades waits between).
func compareTable(names []string, rs []*sim.Report, classes []model.PriorityClass) string {
	var b strings.Builder
	row := func(name string, f func(r *sim.Report) string) {
		cells := []string{name}
		for _, r := range rs {
			cells = append(cells, f(r))
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
	}
	head := append([]string{"measure"}, names...)
	fmt.Fprintf(&b, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	row("completed", func(r *sim.Report) string { return fmt.Sprintf("%d/%d", r.Tasks.Completed, r.Tasks.Submitted) })
	row("makespan s (bound)", func(r *sim.Report) string { return fmt.Sprintf("%.0f (%.0f)", r.MakespanS, r.Bounds.MakespanLowerS) })
	row("GPU allocation", func(r *sim.Report) string { return fmt.Sprintf("%.1f%%", 100*r.Utilization.GPUAllocatedMean) })
	row("JCT mean s (bound)", func(r *sim.Report) string { return fmt.Sprintf("%.0f (%.0f)", r.JCT.MeanS, r.Bounds.JCTMeanLowerS) })
	row("JCT p99 s", func(r *sim.Report) string { return fmt.Sprintf("%.0f", r.JCT.P99S) })
	row("wait mean / p99 s", func(r *sim.Report) string { return fmt.Sprintf("%.0f / %.0f", r.Wait.MeanS, r.Wait.P99S) })
	for _, class := range waitClasses(rs, classes) {
		row("wait mean s: "+class, func(r *sim.Report) string {
			if w, ok := r.Wait.ByPriority[class]; ok {
				return fmt.Sprintf("%.0f", w.MeanS)
			}
			return "-"
		})
	}
	row("preemptions", func(r *sim.Report) string { return fmt.Sprintf("%d", r.Preemptions.Count) })
	row("lost GPU-hours", func(r *sim.Report) string { return fmt.Sprintf("%.1f", r.Preemptions.LostGPUHours) })
	row("Jain (weighted)", func(r *sim.Report) string { return fmt.Sprintf("%.3f", r.Fairness.JainWeighted) })
	row("guarantee violation GPU·h", func(r *sim.Report) string { return fmt.Sprintf("%.1f", r.Fairness.GuaranteeViolationGPUSecs/3600) })
	row("locality optimality", func(r *sim.Report) string { return fmt.Sprintf("%.3f", r.Topology.LocalityOptimality) })
	row("scheduler wall s", func(r *sim.Report) string { return fmt.Sprintf("%.2f", r.Scheduler.WallS) })
	return b.String()
}

// waitClasses lists the priority classes the reports hold waits for: the
// policy's, highest weight first, then any others by name.
func waitClasses(rs []*sim.Report, classes []model.PriorityClass) []string {
	seen := map[string]bool{}
	for _, r := range rs {
		for c := range r.Wait.ByPriority {
			seen[c] = true
		}
	}
	ordered := append([]model.PriorityClass(nil), classes...)
	sort.SliceStable(ordered, func(a, b int) bool { return ordered[a].Weight > ordered[b].Weight })
	var out []string
	for _, pc := range ordered {
		if seen[pc.Name] {
			out = append(out, pc.Name)
			delete(seen, pc.Name)
		}
	}
	var rest []string
	for c := range seen {
		rest = append(rest, c)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// runVariants replays the trace once per variant, as many at a time as there
// are CPUs. Each replay is deterministic on its own, so the reports do not
// depend on the order they finish in.
func runVariants(o sim.Options, jobs []sim.Job, vs []variant) ([]*sim.Report, error) {
	reports := make([]*sim.Report, len(vs))
	errs := make([]error, len(vs))
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, v := range vs {
		vo := o
		p := o.Cluster.Policy
		p.PriorityClasses = append([]model.PriorityClass(nil), p.PriorityClasses...)
		v.Change(&p)
		vo.Cluster.Policy = p
		if v.Teams != nil {
			vo.Cluster.Teams = append([]model.Team(nil), o.Cluster.Teams...)
			for k := range vo.Cluster.Teams {
				v.Teams(&vo.Cluster.Teams[k])
			}
		}
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			r, err := sim.Run(jobs, vo)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", v.Name, err)
				return
			}
			r.Timeline = nil
			reports[i] = r
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return reports, nil
}
