package httpapi

import (
	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/sqlite"
)

// Both store adapters serve the API's reads.
var (
	_ Store = (*sqlite.Store)(nil)
	_ Store = (*postgres.Store)(nil)
)
