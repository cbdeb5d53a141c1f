package main

import (
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// profileFlag adds the hidden --cpuprofile flag: the server writes a CPU
// profile of its whole run to FILE when it stops (`taskgov loadtest
// --cpuprofile` passes it on, to see where a loadtest's time goes).
func profileFlag(c *cobra.Command, path *string) {
	c.Flags().StringVar(path, "cpuprofile", "", "write a CPU profile of the server's run to this file when it stops")
	_ = c.Flags().MarkHidden("cpuprofile")
}

// startProfile starts the CPU profile, if asked; stop writes it.
func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
