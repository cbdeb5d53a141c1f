// Package ui is the web dashboard served at /ui: plain HTML, CSS and ES
// modules embedded in the binary (no build step, nothing from a CDN). The
// page talks to /api/v1 with the token the user logs in with; what it shows
// is what that token may read.
//
// It imports nothing from taskgov.
package ui

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed assets
var assets embed.FS

// Handler serves the dashboard under prefix (e.g. "/ui/").
func Handler(prefix string) http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree is part of the binary
	}
	files := http.StripPrefix(prefix, http.FileServer(http.FS(sub)))
	icon := Favicon()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == prefix+"favicon.ico" {
			icon.ServeHTTP(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}
