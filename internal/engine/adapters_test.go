package engine

import (
	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/sqlite"
)

// Both store adapters satisfy the engine's Store interface.
var (
	_ Store = (*sqlite.Store)(nil)
	_ Store = (*postgres.Store)(nil)
)
