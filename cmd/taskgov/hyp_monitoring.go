package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// hypGetMonitoringCmd is `hyp get-monitoring`: HyperPod prints the URLs of
// the cluster's observability add-on (Amazon Managed Prometheus and
// Grafana) and its metrics. taskgov's observability is the server's own:
// Prometheus metrics at /metrics (a scrape target, not a workspace) and
// the dashboard at /ui; there is no Grafana, and the line says so.
func hypGetMonitoringCmd() *cobra.Command {
	var grafana, prometheus, list bool
	c := &cobra.Command{Use: "get-monitoring", Short: "The server's Prometheus metrics (/metrics) and dashboard (/ui)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			if !grafana && !prometheus && !list {
				// hyp prints this and exits 0; taskgov refuses the input.
				return &usageError{"Please select at least one option: hyp get-monitoring --grafana/--prometheus/--list/--help"}
			}
			cl, err := apiClient()
			if err != nil {
				return err
			}
			text, err := cl.Metrics(cmd.Context()) // also checks the server and token
			if err != nil {
				return err
			}
			if prometheus {
				fmt.Fprintf(out, "Prometheus metrics URL (a scrape target; taskgov has no Prometheus workspace): %s/metrics\n", cl.Server)
			}
			if grafana {
				fmt.Fprintf(out, "Dashboard URL (taskgov's own; it has no Grafana): %s/ui\n", cl.Server)
			}
			if list {
				var rows [][]string
				sc := bufio.NewScanner(strings.NewReader(text))
				for sc.Scan() {
					// "# TYPE name kind" for each of taskgov's metrics.
					if f := strings.Fields(sc.Text()); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" && strings.HasPrefix(f[2], "taskgov_") {
						rows = append(rows, []string{f[2], f[3]})
					}
				}
				presto(out, []string{"Metric", "Type"}, rows)
			}
			return nil
		}}
	c.Flags().BoolVar(&grafana, "grafana", false, "the dashboard's URL (taskgov has no Grafana)")
	c.Flags().BoolVar(&prometheus, "prometheus", false, "the Prometheus metrics URL")
	c.Flags().BoolVar(&list, "list", false, "taskgov's metrics and their types")
	return c
}
