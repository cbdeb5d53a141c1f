package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/client"
)

// Where a failed command line's message goes, for scripts that read one
// stream: taskgov and v2 `hyperpod` (whose logger writes to stderr) print
// it on stderr; hyp prints it where HyperPod's hyp does (docs/HYPERPOD.md,
// "Where errors go"):
//
//   - a command line it refuses (a click usage error, exit 2) and a
//     click.ClickException such as "Unsupported schema version" (exit 1):
//     stderr, as click's "Error: MESSAGE";
//   - every other failure of a job command (handle_cli_exceptions) and of
//     the init experience (init, configure, validate, reset, create from
//     config.yaml): stdout, the message alone, exit 1;
//   - the cluster-context commands, which log their failures: stderr.

// echoedError is a failure hyp's init experience prints on stdout
// (click.secho) before sys.exit(1).
type echoedError struct{ msg string }

func (e *echoedError) Error() string { return e.msg }

// echoed makes err a failure hyp prints on stdout and exits 1 for.
func echoed(err error) error {
	if err == nil {
		return nil
	}
	return &echoedError{err.Error()}
}

// clickException is click's ClickException: "Error: MESSAGE" on stderr,
// exit 1.
type clickException struct{ msg string }

func (e *clickException) Error() string { return e.msg }

// hypLoggedErrors are hyp's commands that log their failures (stderr).
var hypLoggedErrors = map[string]bool{"list-cluster": true, "set-cluster-context": true, "get-cluster-context": true,
	"login": true, "completion": true, "help": true}

// reportError prints err for the command line that failed in cmd (nil
// when none was found) and returns the exit code.
func reportError(root, cmd *cobra.Command, err error, stdout, stderr io.Writer) int {
	code := exitCode(err)
	if !hypMode {
		fmt.Fprintln(stderr, root.Name()+":", err)
		return code
	}
	var ee *echoedError
	var ce *clickException
	switch {
	case errors.As(err, &ee):
		fmt.Fprintln(stdout, err)
	case errors.As(err, &ce) || (code == exitInput && !isClientError(err)):
		fmt.Fprintln(stderr, "Error:", err)
	case cmd != nil && hypLoggedErrors[cmd.Name()]:
		fmt.Fprintln(stderr, err)
	default:
		fmt.Fprintln(stdout, err)
	}
	return code
}

// isClientError reports whether err is the server's answer.
func isClientError(err error) bool {
	var ce *client.Error
	return errors.As(err, &ce)
}
