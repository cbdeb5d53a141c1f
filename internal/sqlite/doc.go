// Package sqlite is taskgov's embedded store adapter: one SQLite database (pure-Go
// driver, WAL mode, synchronous=FULL) with versioned schema migrations. Every
// write the server acknowledges has been committed and fsynced; concurrent
// writes are grouped into one transaction (group commit) by a single writer
// goroutine, so durability does not cost one fsync per request.
//
// It imports model only. It must never import core, the HTTP server or the
// executors: it stores what they hand it.
package sqlite
