package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/client"
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

// hypNotFound words a job command's "not found" (exit 4) as hyp's CLI
// does: a namespace that does not exist, or a job not found in the
// namespace, with the list command to run. resource is hyp-pytorch-job or
// hyp-recipe-job.
func hypNotFound(cmd *cobra.Command, verb, resource string, err error) error {
	var ce *client.Error
	if err == nil || !errors.As(err, &ce) || ce.Status != 404 || strings.HasPrefix(ce.Message, "❌") {
		return err // not a 404, or already in hyp's words (a pod not of the job)
	}
	ns, _ := cmd.Flags().GetString("namespace")
	if ns == "" {
		ns = "default"
	}
	list := "hyp list " + resource
	if ce.Field == "--namespace" {
		msg := fmt.Sprintf("❌ Namespace '%s' does not exist on this cluster. Use '%s' to check for available resources.", ns, list)
		if verb == "create" {
			msg = fmt.Sprintf("❌ Namespace '%s' does not exist on this cluster. Please create the namespace first or use an existing namespace.", ns)
		}
		return &client.Error{Status: 404, Field: ce.Field, Message: msg + " taskgov's namespaces are its teams' (taskgov team list)."}
	}
	name, _ := cmd.Flags().GetString("job-name")
	if name == "" {
		return err
	}
	display := "Pytorch Job"
	if resource == "hyp-recipe-job" {
		display = "Recipe Job"
	}
	where, nsFlag := "", ""
	if ns != "default" {
		where, nsFlag = fmt.Sprintf(" in namespace '%s'", ns), " --namespace "+ns
	}
	msg := fmt.Sprintf("❓ %s '%s' not found%s. Please check the resource name and try again. Use '%s%s' to see available resources.", display, name, where, list, nsFlag)
	if i := strings.Index(ce.Message, "(it is in "); i >= 0 {
		msg += " " + ce.Message[i:]
	}
	return &client.Error{Status: 404, Message: msg}
}
