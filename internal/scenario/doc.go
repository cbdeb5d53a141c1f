// Package scenario reads scenario files (a cluster, a policy, timed inputs and
// the expected decisions) and replays them through the scheduling core,
// rendering every cycle's decision as a readable trace. The scenario tests,
// the CLI's `scenario run` and the demo all use it.
//
// It imports config, core and model. It must never import storage or
// transport packages.
package scenario
