package httpapi

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestOpenAPICoversRoutes keeps the checked-in OpenAPI document true: every
// route the server registers is described, and the document is served.
func TestOpenAPICoversRoutes(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]any
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	e := newEnv(t, testCluster)
	code, body := e.do("GET", "/api/v1/openapi.json", "", nil)
	if code != 200 || !strings.Contains(string(body), `"openapi": "3.0.3"`) {
		t.Fatalf("openapi.json served: %d", code)
	}
	src := routesSource()
	for _, m := range regexp.MustCompile(`"(GET|POST|PUT|DELETE) (/[^"]*)"`).FindAllStringSubmatch(src, -1) {
		method, path := strings.ToLower(m[1]), m[2]
		if _, ok := doc.Paths[path][method]; !ok {
			t.Errorf("%s %s is served but not in openapi.json", m[1], path)
		}
	}
}

// routesSource returns the route patterns the server registers.
func routesSource() string {
	var b strings.Builder
	for _, rt := range (&Server{}).apiRoutes() {
		b.WriteString(`"` + rt.pattern + `"` + "\n")
	}
	return b.String()
}
