// Package httpapi is taskgov's versioned HTTP/JSON API (/api/v1): routing,
// bearer-token authentication and authorization, request validation at the
// edge, and the one place where errors become HTTP statuses. It calls the
// engine for every change and reads views from it.
//
// It imports engine, store and model. The engine must never import it.
package httpapi
