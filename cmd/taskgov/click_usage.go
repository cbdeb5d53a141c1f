package main

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Through the links (hyp, hyperpod) a command line the parser cannot take
// is worded as click words it, since HyperPod's CLIs are click programs and
// their users' scripts and habits know those sentences (docs/HYPERPOD.md):
//
//	No such option: --name (Possible options: --job-name, --namespace)
//	No such option: -x
//	Option '--job-name' requires an argument.
//	Missing option '--job-name'.
//	No such command 'lst'. Did you mean 'list'?
//	Got unexpected extra argument (maybe)
//
// Each stays a usage error (exit 2). Under the name taskgov the parser's
// own words are kept.

// linkedCLI reports whether the binary runs as one of HyperPod's CLIs.
func linkedCLI() bool { return hypMode || hyperpodMode }

// clickFlagMessage words an unknown option or an option without its value
// as click does; ok is false for any other parse error.
func clickFlagMessage(cmd *cobra.Command, err error) (msg string, ok bool) {
	var ne *pflag.NotExistError
	if errors.As(err, &ne) {
		if ne.GetSpecifiedShortnames() != "" {
			// click names the first unknown letter and suggests nothing.
			return "No such option: -" + ne.GetSpecifiedName(), true
		}
		name := "--" + ne.GetSpecifiedName()
		return "No such option: " + name + clickSuggestion(closeMatches(name, longOptions(cmd))), true
	}
	var vr *pflag.ValueRequiredError
	if errors.As(err, &vr) {
		name := "--" + vr.GetSpecifiedName()
		if vr.GetSpecifiedShortnames() != "" {
			name = "-" + vr.GetSpecifiedName()
		}
		return fmt.Sprintf("Option '%s' requires an argument.", name), true
	}
	return "", false
}

// clickSuggestion is what click appends to "No such option: X" for the
// close matches it found (sorted): nothing, "Did you mean A?", or
// "(Possible options: A, B)".
func clickSuggestion(matches []string) string {
	sort.Strings(matches)
	switch len(matches) {
	case 0:
		return ""
	case 1:
		return " Did you mean " + matches[0] + "?"
	}
	return " (Possible options: " + strings.Join(matches, ", ") + ")"
}

// longOptions lists the --names cmd takes, hidden ones left out.
func longOptions(cmd *cobra.Command) []string {
	var names []string
	if cmd == nil {
		return nil
	}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, "--"+f.Name)
		}
	})
	return names
}

// clickMissingOption is click's words for a required option left out.
func clickMissingOption(flag string) error {
	return &usageError{fmt.Sprintf("Missing option '%s'.", flag)}
}

var cobraUnknownCommand = regexp.MustCompile(`^unknown command "([^"]*)" for "[^"]*"`)

// clickCommandError words cobra's unknown command as click does: for a
// command that has subcommands "No such command 'X'." (keeping cobra's
// suggestion in click's manner), for one that takes no arguments "Got
// unexpected extra argument (X)"; any other error is returned as it is.
// cmd is the command cobra found.
func clickCommandError(cmd *cobra.Command, err error) error {
	if err == nil || !linkedCLI() {
		return err
	}
	m := cobraUnknownCommand.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	if cmd != nil && !cmd.HasSubCommands() {
		extra := cmd.Flags().Args()
		if len(extra) < 2 {
			return &usageError{fmt.Sprintf("Got unexpected extra argument (%s)", m[1])}
		}
		return &usageError{fmt.Sprintf("Got unexpected extra arguments (%s)", strings.Join(extra, " "))}
	}
	msg := fmt.Sprintf("No such command '%s'.", m[1])
	if _, after, ok := strings.Cut(err.Error(), "Did you mean this?\n"); ok {
		var sug []string
		for _, s := range strings.Fields(after) {
			sug = append(sug, "'"+s+"'")
		}
		if len(sug) > 0 {
			msg += " Did you mean " + strings.Join(sug, " or ") + "?"
		}
	}
	return &usageError{msg}
}
