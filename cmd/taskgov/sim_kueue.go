package main

import (
	"github.com/spf13/cobra"
)

func simKueueCmd() *cobra.Command {
	return &cobra.Command{Use: "kueue-baseline", Short: "Kueue's baseline benchmark in virtual time", Hidden: true}
}
