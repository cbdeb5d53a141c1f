// Command taskgov governs a shared GPU cluster for many teams. This file only
// wires commands to packages; no scheduling logic lives here.
package main

import (
	"errors"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

// Exit codes, documented in the README.
const (
	exitOK       = 0
	exitFailure  = 1 // taskgov or the server failed, or the server is unreachable
	exitInput    = 2 // the input was refused: fix it and retry
	exitAuth     = 3 // no valid token, or the token may not do that
	exitNotFound = 4 // the job, team, node or token does not exist
	exitConflict = 5 // the request clashes with the current state
)

func main() {
	root := newRootCmd()
	if cmd, err := executeC(root, os.Args[1:]); err != nil {
		os.Exit(reportError(root, cmd, err, os.Stdout, os.Stderr))
	}
	os.Exit(exitOK)
}

// execute runs one command line; HyperPod's BOOL options may take their
// value as the next word.
func execute(root *cobra.Command, args []string) error {
	_, err := executeC(root, args)
	return err
}

// executeC is execute, also returning the command that ran.
func executeC(root *cobra.Command, args []string) (*cobra.Command, error) {
	root.SetArgs(normalizeArgs(args))
	cmd, err := root.ExecuteC()
	return cmd, clickCommandError(cmd, err)
}

// newRootCmd builds the whole command tree: taskgov's, or through a link
// named hyp, HyperPod's hyp CLI.
func newRootCmd() *cobra.Command {
	connFlags.server, connFlags.token = "", ""
	if hypMode {
		root := newHypRoot()
		setVersion(root)
		root.SetFlagErrorFunc(flagError)
		return root
	}
	root := &cobra.Command{
		Use:           "taskgov",
		Short:         "Task governance for shared GPU clusters: quotas, lending, fair share, priorities, gang scheduling",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	if hyperpodMode {
		root.Use = "hyperpod"
	}
	root.PersistentFlags().StringVar(&connFlags.server, "server", "", "taskgov server URL (or TASKGOV_SERVER, or taskgov login)")
	root.PersistentFlags().StringVar(&connFlags.token, "token", "", "API token (or TASKGOV_TOKEN, or taskgov login)")
	root.AddCommand(demoCmd(), scenarioCmd(), validateCmd(), topologyCmd(), serverCmd(), loadtestCmd(), exampleTrainCmd(),
		loginCmd(), startJobCmd(), listJobsCmd(), getJobCmd(), cancelJobCmd(), patchJobCmd(), listPodsCmd(), getLogCmd(),
		policyCmd(), teamCmd(), priorityClassCmd(), nodeCmd(), tokenCmd(), applyCmd(), exportCmd(), simCmd(), benchCmd(), usageCmd(),
		getClustersCmd("get-clusters"), connectClusterCmd("connect-cluster"), execCmd(), storeCmd())
	setVersion(root)
	root.SetFlagErrorFunc(flagError)
	return root
}

// flagError makes every option the command line could not parse (an
// unknown flag or shorthand, a value of the wrong type, a missing value)
// a refused input, exit 2, as HyperPod's CLIs (click) exit on a usage
// error; some of them exited 1. A bad number, boolean or duration is
// worded as click words it (flagValueMessage); through the links an unknown
// option or a missing value is too (clickFlagMessage).
func flagError(cmd *cobra.Command, err error) error {
	if msg, ok := clickFlagMessage(cmd, err); ok && linkedCLI() {
		return &usageError{msg}
	}
	if msg, ok := flagValueMessage(err); ok {
		return &usageError{msg}
	}
	return &usageError{err.Error()}
}

// exitCode maps an error to the documented exit codes. Through the links
// (hyp, hyperpod) it is HyperPod's: both CLIs exit 1 on every error that is
// not a usage error, so not found, not allowed and conflict exit 1 there;
// a refused input still exits 2 (docs/HYPERPOD.md, its exit-code paragraph).
func exitCode(err error) int {
	var ee *echoedError
	var ce *clickException
	if errors.As(err, &ee) || errors.As(err, &ce) {
		return exitFailure
	}
	code := taskgovExitCode(err)
	if (hypMode || hyperpodMode) && (code == exitAuth || code == exitNotFound || code == exitConflict) {
		return exitFailure
	}
	return code
}

// taskgovExitCode is exitCode for taskgov's own name.
func taskgovExitCode(err error) int {
	var ce *client.Error
	if errors.As(err, &ce) {
		switch {
		case ce.Status == 401 || ce.Status == 403:
			return exitAuth
		case ce.Status == 404:
			return exitNotFound
		case ce.Status == 409:
			return exitConflict
		case ce.Status >= 400 && ce.Status < 500:
			return exitInput
		}
		return exitFailure
	}
	var ue *usageError
	if errors.Is(err, model.ErrInvalid) || errors.As(err, &ue) {
		return exitInput
	}
	if strings.Contains(err.Error(), "unknown flag") || strings.Contains(err.Error(), "unknown command") ||
		strings.Contains(err.Error(), "accepts ") || strings.Contains(err.Error(), "required flag") {
		return exitInput
	}
	return exitFailure
}
