package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// queryParams is the query parameters each authenticated route takes, by
// route pattern (apiRoutes), read from the embedded openapi.json, the one
// list of them: a route it gives none takes none. Any other parameter is
// refused with a 400 naming it and listing these (checkQuery), before the
// handler runs, so a typo such as ?stat=Pending never reads as "no
// filter" and a change such as POST ?dryrun=1 stores nothing. Every
// documented route is served (TestQueryParamsMatchOpenAPI), and every
// parameter our own clients send is documented
// (TestOwnClientsQueriesAreAccepted).
var queryParams = documentedQueryParams(openAPI)

// documentedQueryParams maps "METHOD /path" to the names of the query
// parameters an OpenAPI document gives that operation. The document is
// embedded at build time, so one that cannot be read is a build defect.
func documentedQueryParams(doc []byte) map[string][]string {
	var d struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name, In string }
		}
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		panic("httpapi: the embedded openapi.json cannot be read: " + err.Error())
	}
	params := map[string][]string{}
	for path, ops := range d.Paths {
		for method, op := range ops {
			for _, p := range op.Parameters {
				if p.In == "query" {
					key := strings.ToUpper(method) + " " + path
					params[key] = append(params[key], p.Name)
				}
			}
		}
	}
	return params
}

// anyQuery are the authenticated routes whose query is not checked:
// /metrics is read by Prometheus, whose scrape configuration may add
// parameters of its own (params:), and it answers the same whatever they are.
var anyQuery = map[string]bool{"GET /metrics": true}

// maxNamedParams bounds how many unknown parameters one error names.
const maxNamedParams = 5

// checkQuery refuses a query that cannot be parsed, or that names a
// parameter the route does not take. It is the whole contract for
// unknown parameters; each handler still checks its own parameters' values.
func checkQuery(pattern string, r *http.Request) error {
	if r.URL.RawQuery == "" || anyQuery[pattern] {
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return &apiError{Status: http.StatusBadRequest, Code: "invalid", Message: "the query string cannot be read: " + err.Error(),
			Fix: "percent-encode the values (%XX with two hex digits), separate parameters with '&', not ';'"}
	}
	allowed := queryParams[pattern]
	names := make([]string, 0, len(q))
	for name := range q {
		if !slices.Contains(allowed, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names) // the same answer whatever the map's order
	method, path, _ := strings.Cut(pattern, " ")
	fix := method + " " + path + " takes no query parameters; leave them out"
	if len(allowed) > 0 {
		fix = method + " " + path + " takes " + strings.Join(allowed, ", ") + " (see /api/v1/openapi.json)"
	}
	what := "unknown query parameter " + strconv.Quote(names[0])
	if len(names) > 1 {
		shown := min(len(names), maxNamedParams)
		quoted := make([]string, shown)
		for i, n := range names[:shown] {
			quoted[i] = strconv.Quote(n)
		}
		what = "unknown query parameters " + strings.Join(quoted, ", ")
		if len(names) > shown {
			what += " and " + strconv.Itoa(len(names)-shown) + " more"
		}
	}
	what += " for " + pattern
	if method != http.MethodGet {
		what += "; nothing was changed"
	}
	return &apiError{Status: http.StatusBadRequest, Code: "invalid", Field: names[0], Message: what, Fix: fix}
}
