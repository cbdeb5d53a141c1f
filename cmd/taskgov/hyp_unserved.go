package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// hypUnserved are hyp's commands for what taskgov does not run: each one
// answers (exit 2) with the reason and what to use, rather than cobra's
// "unknown command".
func hypUnserved() []*cobra.Command {
	var cs []*cobra.Command
	for _, u := range []struct{ use, why string }{
		{"update", "it updates clusters, spaces and space templates, which are not taskgov's; change teams and policy with taskgov team / policy, or taskgov apply -f"},
		{"start", "it starts spaces (development environments), which are not taskgov's; jobs start with `hyp create hyp-pytorch-job`"},
		{"stop", "it stops spaces, which are not taskgov's; a job stops with `hyp delete hyp-pytorch-job --job-name J`"},
		{"portforward", "it forwards a space's port, and spaces are not taskgov's"},
		{"invoke", "it invokes inference endpoints, which are not taskgov's"},
		{"list-accelerator-partition-type", "taskgov does not schedule GPU partitions (MIG); jobs ask for whole GPUs with --accelerators"},
	} {
		u := u
		cs = append(cs, &cobra.Command{Use: u.use, Short: "Refused: " + u.why, Hidden: true, DisableFlagParsing: true,
			RunE: func(*cobra.Command, []string) error {
				return &usageError{fmt.Sprintf("hyp %s is not served by taskgov: %s", u.use, u.why)}
			}})
	}
	return cs
}
