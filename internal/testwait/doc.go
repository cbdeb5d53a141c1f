// Package testwait gives tests waits whose deadlines grow with the
// machine's load, so that a test waiting for a condition fails for the
// product's fault only, not because a shared 2-core machine ran it slowly.
//
// It is for the waits of tests (a state reached, a process ready, a page
// rendered). A bound that is itself the thing a test asserts (a latency
// budget, a lease's takeover time) must not be scaled.
//
// It imports only the standard library, and nothing but tests import it.
package testwait
