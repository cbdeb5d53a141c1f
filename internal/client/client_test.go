package client

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNamesStayInTheirSegment: whatever a name holds, the request reaches
// the route for that name, with the name intact, or is refused before it
// is sent; it never reaches another route.
func TestNamesStayInTheirSegment(t *testing.T) {
	mux := http.NewServeMux()
	var gotName, gotRoute string
	mux.HandleFunc("POST /api/v1/tasks/{name}/{action}", func(w http.ResponseWriter, r *http.Request) {
		gotName, gotRoute = r.PathValue("name"), "tasks/"+r.PathValue("action")
		w.Write([]byte(`{}`))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		gotRoute = "other: " + r.URL.Path
		w.WriteHeader(http.StatusNotFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := New(srv.URL, "t")
	for _, name := range []string{"../nodes/p5-1/cordon?", "a/b", "x?y=1", "x#frag", "50%", "...", "a b"} {
		gotName, gotRoute = "", ""
		if _, err := c.TaskAction(context.Background(), name, ActionCancel); err != nil {
			t.Fatalf("%q: %v (route %s)", name, err, gotRoute)
		}
		if gotRoute != "tasks/cancel" || gotName != name {
			t.Fatalf("%q reached %q as %q", name, gotRoute, gotName)
		}
	}
	for _, name := range []string{"", ".", ".."} {
		gotRoute = ""
		_, err := c.TaskAction(context.Background(), name, ActionCancel)
		var ce *Error
		if !errors.As(err, &ce) || ce.Status != http.StatusBadRequest || gotRoute != "" {
			t.Fatalf("%q: %v, sent to %q", name, err, gotRoute)
		}
	}
}

// TestOnlyTheClientSpellsAPIPaths keeps the one-client rule: outside this
// package and the server that serves them, no Go code writes an /api/v1
// path as a string literal (tests aside).
func TestOnlyTheClientSpellsAPIPaths(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "httpapi" || d.Name() == "client" || d.Name() == "tools" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(`"/api/v1`)) {
			t.Errorf("%s spells an /api/v1 path: use a typed method of internal/client", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
