package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/sim"
)

// Kueue v0.17.0's figures for its baseline, as the issue quotes them.
var kueuePublished = sim.KueueFigures{WallS: 351, UsagePct: 58.7, AdmitS: map[string]float64{"small": 215.5, "medium": 76.8, "large": 6.7}}
var kueueInProcess = sim.KueueFigures{WallS: 88.8, AdmitS: map[string]float64{"small": 40.5, "medium": 26.4, "large": 2.2}, Evictions: 10864}

func simKueueCmd() *cobra.Command {
	var allAtZero bool
	var delay float64
	c := &cobra.Command{Use: "kueue-baseline", Short: "Run Kueue's scheduler baseline benchmark in virtual time and compare", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, jobs := sim.KueueBaseline(allAtZero)
			cl.Policy.PreemptionDelaySeconds = delay
			r, err := sim.Run(jobs, sim.Options{Cluster: cl})
			if err != nil {
				return err
			}
			f := sim.KueueResult(r)
			kueueTable(cmd.OutOrStdout(), fmt.Sprintf("taskgov, virtual time (preemption delay %gs)", delay), f)
			return nil
		}}
	c.Flags().BoolVar(&allAtZero, "all-at-zero", false, "submit every workload at t = 0 (Kueue's second variant)")
	c.Flags().Float64Var(&delay, "preemption-delay", 1, "policy preemptionDelaySeconds for this run")
	return c
}

// kueueTable prints ours beside Kueue's figures and the bound.
func kueueTable(w io.Writer, label string, f sim.KueueFigures) {
	fmt.Fprintf(w, "| run | wall s | usage | to last admission: small s | medium s | large s | to first admission: small s | medium s | large s | evictions |\n|---|---|---|---|---|---|---|---|---|---|\n")
	line := func(name string, k sim.KueueFigures, usage, evictions string) {
		first := "- | - | -"
		if k.AdmitFirstS != nil {
			first = fmt.Sprintf("%.1f | %.1f | %.1f", k.AdmitFirstS["small"], k.AdmitFirstS["medium"], k.AdmitFirstS["large"])
		}
		fmt.Fprintf(w, "| %s | %.1f | %s | %.1f | %.1f | %.1f | %s | %s |\n", name, k.WallS, usage, k.AdmitS["small"], k.AdmitS["medium"], k.AdmitS["large"], first, evictions)
	}
	line(label, f, fmt.Sprintf("%.1f%%", f.UsagePct), fmt.Sprint(f.Evictions))
	line("Kueue v0.17.0 published", kueuePublished, "58.7%", "-")
	line("Kueue v0.17.0 in-process (issue)", kueueInProcess, "-", "10864")
	fmt.Fprintf(w, "| lower bound (one cohort) | %.1f | | | | | | | | |\n", sim.KueueCohortBound())
}
