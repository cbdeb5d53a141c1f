package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

// exportTaskgov writes the server's teams and policy as a cluster file
// (with its instance types and topology levels, which the teams' quotas
// and the policy are checked against; no nodes: apply -f reads teams and
// policy only). Every field apply -f accepts is written, so applying it
// back changes nothing. out is a file path, or "" for stdout.
func exportTaskgov(cmd *cobra.Command, cl *client.Client, out string) error {
	live, err := cl.Cluster(cmd.Context())
	if err != nil {
		return err
	}
	p, err := cl.Policy(cmd.Context())
	if err != nil {
		return err
	}
	teams, err := cl.Teams(cmd.Context())
	if err != nil {
		return err
	}
	doc := model.Cluster{Name: live.Name, TopologyLevels: live.TopologyLevels, InstanceTypes: live.InstanceTypes, Policy: p, Teams: teams}
	b, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	b = append([]byte("# taskgov export --format taskgov: teams and policy; `taskgov apply -f` this file\n"), b...)
	if out == "" {
		_, err = cmd.OutOrStdout().Write(b)
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return &model.FieldError{Field: "--out", Problem: "cannot be written: " + err.Error(), Fix: "name a file in a directory you can write"}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %d teams and the policy to %s\n", len(teams), out)
	return nil
}
