package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

// getClustersCmd is HyperPod's get-clusters (hyp: list-cluster): the
// cluster's capacity per instance type, and with -n a namespace's quota in
// accelerators. taskgov serves one cluster, the server's.
func getClustersCmd(use string) *cobra.Command {
	var region, clusters, output, orchestrator string
	var namespaces []string
	var debug bool
	c := &cobra.Command{Use: use, Short: "The cluster's capacity per instance type, and with -n a team's quota (HyperPod's " + use + ")", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if err := checkOutput(output, "json", "table"); err != nil {
				return err
			}
			if err := checkChoice("orchestrator", orchestrator, "eks"); err != nil { // HyperPod's only choice
				return err
			}
			cl, err := apiClient()
			if err != nil {
				return err
			}
			name, err := servedClusterName(ctx, cl)
			if err != nil {
				return err
			}
			if clusters != "" && !contains(strings.Split(clusters, ","), name) {
				return &client.Error{Status: 404, Field: "--clusters", Message: fmt.Sprintf("this taskgov server serves one cluster, %s", name),
					Fix: "drop --clusters, or pass --clusters " + name}
			}
			nodes, err := cl.Nodes(ctx)
			if err != nil {
				return err
			}
			r := newResolver(cl)
			var teams []string
			for _, ns := range namespaces {
				t, err := r.team(ctx, ns)
				if err != nil {
					return err
				}
				teams = append(teams, t)
			}
			usage, err := cl.Usage(ctx)
			if err != nil {
				return err
			}
			type quota struct {
				Available int64 `json:"AvailableAcceleratorDevices"`
				Total     int64 `json:"TotalAcceleratorDevices"`
			}
			type instance struct {
				InstanceType string           `json:"InstanceType"`
				TotalNodes   int              `json:"TotalNodes"`
				Available    int64            `json:"AcceleratorDevicesAvailable"`
				Schedulable  int              `json:"NodeHealthStatus=Schedulable"`
				DeepHealth   string           `json:"DeepHealthCheckStatus=Passed"`
				Namespaces   map[string]quota `json:"Namespaces,omitempty"`
			}
			var order []string
			byType := map[string]*instance{}
			for _, n := range nodes {
				it := byType[n.InstanceType]
				if it == nil {
					it = &instance{InstanceType: n.InstanceType, DeepHealth: "N/A"}
					byType[n.InstanceType] = it
					order = append(order, n.InstanceType)
				}
				it.TotalNodes++
				if n.Schedulable {
					it.Schedulable++
					it.Available += n.FreeGPUs
				}
			}
			var out []instance
			for _, typ := range order {
				it := byType[typ]
				if len(namespaces) > 0 {
					it.Namespaces = map[string]quota{}
					for i, ns := range namespaces {
						q := quota{}
						for _, u := range usage {
							if u.Team == teams[i] && u.InstanceType == typ {
								q = quota{Available: max(u.QuotaGPUs-u.UsedGPUs, 0), Total: u.QuotaGPUs}
							}
						}
						it.Namespaces[ns] = q
					}
				}
				out = append(out, *it)
			}
			if output == "table" {
				headers := []string{"Cluster", "InstanceType", "TotalNodes", "AcceleratorDevicesAvailable", "NodeHealthStatus=Schedulable", "DeepHealthCheckStatus=Passed"}
				for _, ns := range namespaces {
					headers = append(headers, ns+"TotalAcceleratorDevices", ns+"AvailableAcceleratorDevices")
				}
				var rows [][]string
				for _, it := range out {
					r := []string{name, it.InstanceType, strconv.Itoa(it.TotalNodes), strconv.FormatInt(it.Available, 10), strconv.Itoa(it.Schedulable), it.DeepHealth}
					for _, ns := range namespaces {
						r = append(r, strconv.FormatInt(it.Namespaces[ns].Total, 10), strconv.FormatInt(it.Namespaces[ns].Available, 10))
					}
					rows = append(rows, r)
				}
				presto(cmd.OutOrStdout(), headers, rows)
				return nil
			}
			return writeIndented(cmd.OutOrStdout(), []any{map[string]any{"Cluster": name, "Instances": out}}, 4)
		}}
	f := c.Flags()
	f.StringVar(&region, "region", "", "accepted: a taskgov server has no region")
	f.StringVar(&clusters, "clusters", "", "cluster names; taskgov serves one")
	f.StringArrayVarP(&namespaces, "namespace", "n", nil, "a team namespace whose quota to show (repeatable)")
	f.StringVar(&output, "output", "json", "json or table")
	f.StringVar(&orchestrator, "orchestrator", "eks", "accepted: eks (the only choice)")
	f.BoolVar(&debug, "debug", false, "accepted")
	return c
}

// connectClusterCmd is HyperPod's connect-cluster (hyp:
// set-cluster-context): taskgov's meaning is to check the server and save
// a default namespace for job commands given no -n.
func connectClusterCmd(use string) *cobra.Command {
	var name, region, namespace string
	var debug bool
	c := &cobra.Command{Use: use + " --cluster-name NAME [--namespace NS]",
		Short: "Check the server and set the default namespace of job commands (HyperPod's " + use + ")", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if name == "" {
				return &model.FieldError{Field: "--cluster-name", Problem: "no cluster named", Fix: "pass --cluster-name NAME (the server's cluster; see get-clusters)"}
			}
			cl, err := apiClient()
			if err != nil {
				return err
			}
			// As HyperPod's CLI, which describes the cluster first: an
			// unknown name changes no context (exit 1 through the links).
			served, err := servedClusterName(cmd.Context(), cl)
			if err != nil {
				return err
			}
			if name != served {
				return &client.Error{Status: 404, Field: "--cluster-name", Message: fmt.Sprintf("cannot connect to cluster %s: this taskgov server serves one cluster, %s; nothing was saved", name, served),
					Fix: "pass --cluster-name " + served + " (list-cluster names it)"}
			}
			cfg := readConfig()
			cfg.Server, cfg.Token = cl.Server, cl.Token
			cfg.Namespace = ""
			if namespace != "" {
				r := newResolver(cl)
				team, err := r.team(cmd.Context(), namespace)
				if err != nil {
					return err
				}
				cfg.Namespace = r.namespaceOf(team)
			} else if _, err := cl.Teams(cmd.Context()); err != nil {
				return err
			}
			p, err := writeConfig(cfg)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "connected to %s at %s; default namespace %s; saved in %s\n", name, cl.Server, orDash(cfg.Namespace), p)
			return nil
		}}
	c.Flags().StringVar(&name, "cluster-name", "", "the cluster (taskgov serves one)")
	c.Flags().StringVar(&region, "region", "", "accepted: a taskgov server has no region")
	c.Flags().StringVarP(&namespace, "namespace", "n", "", "default namespace of job commands")
	c.Flags().BoolVar(&debug, "debug", false, "accepted")
	return c
}

// servedClusterName is the name of the one cluster the server serves, as
// get-clusters shows it: the cluster file's name to an admin, "taskgov"
// to a token that may not read the cluster (the name is admin-only).
func servedClusterName(ctx context.Context, cl *client.Client) (string, error) {
	var ce *client.Error
	switch c, err := cl.Cluster(ctx); {
	case err == nil && c.Name != "":
		return c.Name, nil
	case err != nil && !(errors.As(err, &ce) && ce.Status == 403):
		return "", err
	}
	return "taskgov", nil
}

// execCmd is HyperPod's exec. taskgov does not run commands inside pods: a
// local pod is a process on the server's host, and a Kubernetes pod is
// reached with kubectl. The refusal names the pod to use.
func execCmd() *cobra.Command {
	var j jobFlags
	var pod, container string
	var allPods, debug bool
	c := &cobra.Command{Use: "exec --job-name NAME (-p POD | --all-pods) -- COMMAND",
		Short: "Refused with the kubectl command to use: taskgov does not run commands in pods", Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (pod == "") == !allPods {
				return &model.FieldError{Field: "--pod", Problem: "With job-name name must specify only one option --pod or --all-pods", Fix: "pass -p POD or --all-pods"}
			}
			cl, err := apiClient()
			if err != nil {
				return err
			}
			t, err := findJob(cmd.Context(), cl, newResolver(cl), j)
			if err != nil {
				return err
			}
			// The Kubernetes executor runs a team's pods in hyperpod-ns-<team>.
			kubeNS := model.NamespacePrefix + t.Team
			sel := "taskgov.io/task=" + t.Name
			if pod != "" {
				rank, err := podRank(t.Name, pod)
				if err != nil {
					return err
				}
				sel += ",taskgov.io/rank=" + strconv.Itoa(rank)
			}
			return &model.FieldError{Field: "exec", Problem: "taskgov does not run commands inside pods",
				Fix: fmt.Sprintf("on the Kubernetes executor use kubectl: for p in $(kubectl get pods -n %s -l %s -o name); do kubectl exec -n %s $p -- %s; done; "+
					"on the local executor a pod is a process on the server's host (see taskgov get-log)", kubeNS, sel, kubeNS, strings.Join(args, " "))}
		}}
	j.add(c)
	c.Flags().StringVarP(&pod, "pod", "p", "", "the pod")
	c.Flags().BoolVar(&allPods, "all-pods", false, "every pod of the job")
	c.Flags().StringVar(&container, "container", "", "accepted")
	c.Flags().BoolVar(&debug, "debug", false, "accepted")
	return c
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
