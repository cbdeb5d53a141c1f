// Package engine is the control loop of `taskgov server`: the one writer. It
// owns the scheduling core, takes every change (API calls, pod events) as an
// input, and runs in batches: apply the inputs to the core, run a scheduling
// cycle, persist the inputs and the decision in one durable transaction
// (group commit: one fsync per batch), answer the callers, then act on the
// decision through the executor: stop victims first, start admitted pods
// only once nothing still stopping holds their nodes.
//
// It imports core, store, executor and model. It must never import the HTTP
// layer.
package engine
