package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// hyp's verbs take a resource (`hyp list hyp-space`); taskgov serves the
// PyTorch job resources (hyp-pytorch-job, and hyp-recipe-job as a PyTorch
// job) and the cluster. Every other resource of hyp's README is refused
// (exit 2) naming what it is and what taskgov does instead, whatever
// options follow it: a group does not parse flags before it knows the
// resource, so `hyp list hyp-space --output json` gets that reason, not
// "unknown flag".

// hypOtherResources are hyp's resources that are not taskgov's, with why.
var hypOtherResources = map[string]string{
	"hyp-space": "spaces are interactive development environments (Jupyter, Code Editor), which taskgov does not run; " +
		"taskgov governs batch jobs: submit work with `hyp create hyp-pytorch-job`, and give it a team and class with --queue-name and --priority",
	"hyp-space-template":     "space templates configure spaces, which taskgov does not run",
	"hyp-space-access":       "space access connects an IDE to a space, which taskgov does not run",
	"hyp-space-admin-config": "it configures spaces, which taskgov does not run",
	"hyp-jumpstart-endpoint": "inference endpoints (JumpStart models served by HyperPod's inference operator) are not taskgov's; " +
		"taskgov governs training jobs: run a server as a job with `hyp create hyp-pytorch-job --command '[...]'`",
	"hyp-custom-endpoint": "inference endpoints (models served by HyperPod's inference operator) are not taskgov's; " +
		"taskgov governs training jobs: run a server as a job with `hyp create hyp-pytorch-job --command '[...]'`",
	"cluster-stack": "cluster stacks are CloudFormation stacks in an AWS account; a taskgov cluster is the server's cluster file " +
		"(taskgov server --config FILE) or its Kubernetes nodes: see `hyp list-cluster`",
}

// hypResourceRefusal is the refusal of `hyp VERB RESOURCE`.
func hypResourceRefusal(verb, resource string) error {
	if why, ok := hypOtherResources[resource]; ok {
		return &usageError{fmt.Sprintf("hyp %s %s is not served by taskgov: %s", verb, resource, why)}
	}
	return &usageError{fmt.Sprintf("hyp %s: no resource %q: taskgov serves hyp-pytorch-job (and hyp-recipe-job as a PyTorch job): use `hyp %s hyp-pytorch-job`", verb, resource, verb)}
}

// hypGroup is one of hyp's verbs: its resources are subcommands; anything
// else is refused by hypResourceRefusal before its options are read. run,
// when set, is the verb without a resource (`hyp create`: the job of
// ./config.yaml); it gets the verb's own flags parsed.
func hypGroup(use, short string, run func(*cobra.Command) error) *cobra.Command {
	g := &cobra.Command{Use: use, Short: short, Args: cobra.ArbitraryArgs, DisableFlagParsing: true}
	g.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			return hypResourceRefusal(use, args[0])
		}
		rest, err := parseOwnFlags(cmd, args)
		if err != nil {
			return err
		}
		if help, _ := cmd.Flags().GetBool("help"); help {
			return cmd.Help()
		}
		if len(rest) > 0 {
			return hypResourceRefusal(use, rest[0])
		}
		if run == nil {
			return &usageError{fmt.Sprintf("hyp %s needs a resource: use `hyp %s hyp-pytorch-job`", use, use)}
		}
		return run(cmd)
	}
	return g
}

// parseOwnFlags parses a command's flags (its own and inherited) for a
// command whose flag parsing is off, and returns the other arguments.
func parseOwnFlags(cmd *cobra.Command, args []string) ([]string, error) {
	cmd.DisableFlagParsing = false
	defer func() { cmd.DisableFlagParsing = true }()
	if err := cmd.ParseFlags(args); err != nil {
		return nil, cmd.FlagErrorFunc()(cmd, err)
	}
	return cmd.Flags().Args(), nil
}
