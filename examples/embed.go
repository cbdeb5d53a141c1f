// Package examples ships the example cluster files, the demo scenario and the
// example training script inside the binary, so `taskgov demo` works from any
// directory.
package examples

import _ "embed"

// Demo is the scenario `taskgov scenario demo` replays.
//
//go:embed demo.yaml
var Demo []byte

// DemoCluster is the sample cluster the live demo serves.
//
//go:embed demo-cluster.yaml
var DemoCluster []byte

// TrainScript is the example training script (Python standard library only).
//
//go:embed train.py
var TrainScript []byte
