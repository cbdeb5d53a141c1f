// Package examples ships the example cluster files and the demo scenario
// inside the binary, so `taskgov demo` works from any directory.
package examples

import _ "embed"

// Demo is the scenario `taskgov demo` replays.
//
//go:embed demo.yaml
var Demo []byte
