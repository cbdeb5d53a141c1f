package main

import (
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildVersion is the version the binary was built as: the module's
// version ("(devel)" for a build from a checkout) and, when Go recorded
// it, the commit and whether the tree had changes.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+changes"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " " + rev + dirty
	}
	return v
}

// setVersion gives root a --version flag that prints the build version in
// the shape of the CLI it answers as: taskgov's, hyperpod's (click's
// "PROG, version V") or hyp's ("hyp version: V").
func setVersion(root *cobra.Command) {
	root.Version = buildVersion()
	switch root.Name() {
	case "hyp":
		// hyp prints its package's and its three templates' versions.
		root.SetVersionTemplate("hyp version: {{.Version}} (taskgov)\n" +
			"hyperpod-pytorch-job-template version: 1.1 (taskgov; schemas 1.0 and 1.1)\n" +
			"hyperpod-custom-inference-template version: Not installed\n" +
			"hyperpod-jumpstart-inference-template version: Not installed\n")
	case "hyperpod":
		root.SetVersionTemplate("hyperpod, version {{.Version}} (taskgov)\n")
	default:
		root.SetVersionTemplate("taskgov version {{.Version}}\n")
	}
}
