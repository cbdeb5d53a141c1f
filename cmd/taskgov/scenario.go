package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/examples"
	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/scenario"
)

func scenarioDemoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Replay the built-in demo scenario and print every scheduling decision",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var f scenario.File
			if err := config.Decode(examples.Demo, &f); err != nil {
				return fmt.Errorf("built-in demo: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "# %s\n# %s\n", f.Name, f.Description)
			return runScenario(cmd, &f, 0)
		},
	}
}

func scenarioCmd() *cobra.Command {
	var seed int64
	run := &cobra.Command{
		Use:   "run FILE",
		Short: "Replay a scenario file through the scheduling core and print the decisions",
		Long: `Replay a scenario file through the scheduling core and print the decisions.
It exits 1 when the trace differs from the file's expect block, when an input
is refused and the file has no expect block recording it, or when the steps
are out of time order.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := scenario.Load(args[0])
			if err != nil {
				return err
			}
			return runScenario(cmd, f, seed)
		},
	}
	run.Flags().Int64Var(&seed, "seed", 0, "seed for the core's randomized tie-breaks")
	c := &cobra.Command{Use: "scenario", Short: "Scenario files: a cluster, timed inputs and expected decisions"}
	c.AddCommand(run, scenarioDemoCmd())
	return c
}

// runScenario prints the trace and fails (exit 1) when it differs from the
// file's expect block, when an input was refused that no expect block
// records, or when the steps are out of time order.
func runScenario(cmd *cobra.Command, f *scenario.File, seed int64) error {
	trace, err := scenario.Run(f, scenario.Options{Seed: seed, Check: true})
	fmt.Fprint(cmd.OutOrStdout(), trace)
	if err != nil {
		return err
	}
	return scenario.Check(f, trace)
}

func validateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate CLUSTER_FILE",
		Short: "Check a cluster file and list every problem with its fix",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := config.LoadCluster(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (%d nodes, %d teams)\n", args[0], len(c.ExpandNodes()), len(c.Teams))
			return nil
		},
	}
}
