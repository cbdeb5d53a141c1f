package postgres

import "github.com/taskgov/taskgov/internal/engine"

// The PostgreSQL adapter serves the engine as the SQLite one does.
var _ engine.Store = (*Store)(nil)
