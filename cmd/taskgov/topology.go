package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/model"
)

func topologyCmd() *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "topology [CLUSTER_FILE]",
		Short: "Print the network topology tree (layer 1 → layer 2 → layer 3 → nodes) with GPUs and tasks per domain",
		Long:  "With a cluster file, its tree; without, the live tree from the server (--server/--token).",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var view model.TopologyView
			if len(args) == 1 {
				cl, err := config.LoadCluster(args[0])
				if err != nil {
					return err
				}
				s, err := core.New(cl, 0)
				if err != nil {
					return err
				}
				view = s.TopologyView()
			} else {
				cl, err := apiClient()
				if err != nil {
					return err
				}
				if view, err = cl.Topology(cmd.Context()); err != nil {
					return err
				}
			}
			switch output {
			case "text":
				fmt.Fprint(cmd.OutOrStdout(), view.Text(100))
			case "json":
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(view)
			default:
				return &model.FieldError{Field: "--output", Problem: fmt.Sprintf("unknown format %q", output), Fix: "use text or json"}
			}
			return nil
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	return c
}
