package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/client"
)

// hypDescribeClusterCmd is `hyp describe cluster NAME`: HyperPod prints
// SageMaker's DescribeCluster answer as a key | value table under the
// cluster's name and status. taskgov serves one cluster, the server's: its
// name (`hyp list-cluster`), InService while the server answers, the
// server it is reached at, and its nodes per instance type. Another name
// is not found (exit 4), as `hyp list-cluster --clusters` answers.
func hypDescribeClusterCmd() *cobra.Command {
	var region string
	var debug bool
	c := &cobra.Command{Use: "cluster CLUSTER-NAME", Short: "The server's cluster: status and nodes per instance type", Args: cobra.ExactArgs(1),
		RunE: withClient(func(cmd *cobra.Command, args []string, cl *client.Client) error {
			ctx := cmd.Context()
			name := "taskgov" // the cluster's name is for admins; others see "taskgov"
			var ce *client.Error
			switch c, err := cl.Cluster(ctx); {
			case err == nil && c.Name != "":
				name = c.Name
			case err != nil && !(errors.As(err, &ce) && ce.Status == 403):
				return err
			}
			if args[0] != name {
				return &client.Error{Status: 404, Field: "CLUSTER-NAME", Message: fmt.Sprintf("❌ Cluster '%s' not found: this taskgov server serves one cluster, %s", args[0], name),
					Fix: "hyp describe cluster " + name}
			}
			nodes, err := cl.Nodes(ctx)
			if err != nil {
				return err
			}
			type group struct {
				InstanceType       string `json:"InstanceType"`
				CurrentCount       int    `json:"CurrentCount"`
				SchedulableCount   int    `json:"SchedulableCount"`
				AcceleratorDevices int64  `json:"AcceleratorDevices"`
				AvailableDevices   int64  `json:"AcceleratorDevicesAvailable"`
			}
			var groups []*group
			byType := map[string]*group{}
			for _, n := range nodes {
				g := byType[n.InstanceType]
				if g == nil {
					g = &group{InstanceType: n.InstanceType}
					byType[n.InstanceType] = g
					groups = append(groups, g)
				}
				g.CurrentCount++
				g.AcceleratorDevices += n.GPUs
				if n.Schedulable {
					g.SchedulableCount++
					g.AvailableDevices += n.FreeGPUs
				}
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "📋 Cluster Details for: %s\n", name)
			fmt.Fprintln(out, "Status: InService")
			orchestrator := map[string]any{"Taskgov": map[string]string{"Server": cl.Server}}
			keyValueTable(out, [][2]any{{"ClusterName", name}, {"ClusterStatus", "InService"}, {"InstanceGroups", groups}, {"Orchestrator", orchestrator}})
			return nil
		})}
	c.Flags().StringVar(&region, "region", "", "accepted: a taskgov server has no region")
	c.Flags().BoolVar(&debug, "debug", false, "accepted")
	return c
}

// keyValueTable prints rows as tabulate's headerless "presto" table does:
// a value that is a map or a list as indented JSON, one line per row.
func keyValueTable(w io.Writer, rows [][2]any) {
	width := 0
	for _, r := range rows {
		width = max(width, len(r[0].(string)))
	}
	for _, r := range rows {
		v := fmt.Sprint(r[1])
		if _, isString := r[1].(string); !isString {
			b, _ := json.MarshalIndent(r[1], "", "  ")
			v = string(b)
		}
		for i, l := range strings.Split(v, "\n") {
			k := ""
			if i == 0 {
				k = r[0].(string)
			}
			fmt.Fprintf(w, " %-*s | %s\n", width, k, l)
		}
	}
}
