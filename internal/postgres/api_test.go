package postgres

import (
	"github.com/taskgov/taskgov/internal/httpapi"
	"github.com/taskgov/taskgov/internal/trends"
)

// The PostgreSQL adapter serves the API and the sampler as SQLite does.
var (
	_ httpapi.Store = (*Store)(nil)
	_ trends.Store  = (*Store)(nil)
)
