// Package core is taskgov's scheduling core: quotas, lending and borrowing,
// fair share, priorities, gang admission, placement and preemption.
//
// A Scheduler is a deterministic state machine in the style of etcd raft.
// Inputs arrive through methods (Submit, Complete, Fail, Checkpoint, node,
// team and policy changes) and Schedule(now) returns a model.Decision that
// the caller persists and then acts on. The Scheduler reads no clock, starts
// no goroutine, does no I/O and uses no global randomness: the same sequence
// of inputs gives the same decisions, bit for bit. It is not safe for
// concurrent use; one owner (the server's applier or the simulator) drives it.
//
// It imports only internal/model and internal/resource. It must never import
// storage, transport, executor or simulator packages.
package core
