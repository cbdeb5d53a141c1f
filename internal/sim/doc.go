// Package sim replays workload traces through the real scheduling core in
// virtual time, and measures the outcome against lower bounds: utilisation,
// makespan, job completion and wait times, preemptions and lost work,
// weighted fairness, quota guarantees and topology locality.
//
// The simulator is deterministic: the same trace, cluster, policy and seed
// give the same report, bit for bit (wall-clock figures aside). It imports
// core, model and config. It must never import the engine, storage or
// transport packages.
package sim
