// Package model holds taskgov's domain types: the cluster file (instance
// types, node groups, policy, teams), task specs, and the decisions the
// scheduling core returns. The simulator, the server and the tests all read and
// write these same types; nothing else defines them again.
//
// It imports only internal/resource and the standard library. It must never
// import core, config loading, storage or transport packages.
package model
