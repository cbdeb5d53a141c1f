// Package postgres is taskgov's PostgreSQL storage adapter (pgx), for
// installations that run several replicas on several hosts. It has the same
// methods and the same semantics as the SQLite adapter (internal/sqlite):
// versioned migrations, one durable transaction per Commit (synchronous_commit
// on: acknowledged means flushed), and every query the API needs. The shared
// suite in internal/storetest runs against both.
//
// It also holds the leader lease (lease.go): a row with a holder, a term and
// an expiry, so that replicas elect one leader without Kubernetes. Every
// Commit of a fenced store first checks, under a share lock on the term row,
// that its term is still the current one; a deposed leader's commit is
// refused with ErrFenced and writes nothing.
//
// It imports store (for the record types) and model only. It must never
// import core, the engine, the HTTP server or the executors.
package postgres
