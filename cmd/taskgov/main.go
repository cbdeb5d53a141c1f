// Command taskgov governs a shared GPU cluster for many teams. This file only
// wires commands to packages; no scheduling logic lives here.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/model"
)

// Exit codes, documented in the README.
const (
	exitOK      = 0
	exitFailure = 1 // taskgov itself failed
	exitInput   = 2 // the input was refused: fix it and retry
)

func main() {
	root := &cobra.Command{
		Use:           "taskgov",
		Short:         "Task governance for shared GPU clusters: quotas, lending, fair share, priorities, gang scheduling",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(demoCmd(), scenarioCmd(), validateCmd(), topologyCmd(), serverCmd(), loadtestCmd(), exampleTrainCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "taskgov:", err)
		if errors.Is(err, model.ErrInvalid) {
			os.Exit(exitInput)
		}
		os.Exit(exitFailure)
	}
	os.Exit(exitOK)
}
