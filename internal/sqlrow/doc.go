// Package sqlrow is the row layout the two SQL adapters (internal/sqlite and
// internal/postgres) share: the column lists of their tables and the
// mapping between a row and a model record (times as Unix nanoseconds, 0
// for none; specs, placements and process groups as JSON text), so that
// both read and write the same rows the same way; and the few statements
// and write sequences both make alike but for the placeholder syntax (the
// audit log's query, a token write with its audit entry). It knows no
// database: the adapters run the statements. It imports model only, and
// never an adapter.
package sqlrow
