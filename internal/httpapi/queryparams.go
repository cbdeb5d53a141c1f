package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// queryParams is the query parameters each authenticated route takes, by
// route pattern (apiRoutes). A route that is not listed takes none. Any
// other parameter is refused with a 400 naming it and listing these
// (checkQuery), before the handler runs, so a typo such as ?stat=Pending
// never reads as "no filter" and a change such as POST ?dryrun=1 stores
// nothing. openapi.json lists the same parameters (TestQueryParamsMatchOpenAPI),
// and every parameter our own clients send is among them
// (TestOwnClientsQueriesAreAccepted).
var queryParams = map[string][]string{
	"GET /api/v1/tasks":               {"team", "state", "since", "after", "limit", "deleted", "q", "sort", "order", "offset", "summary"},
	"GET /api/v1/tasks/{name}/events": {"after"},
	"GET /api/v1/tasks/{name}/logs":   {"rank", "offset", "tail", "limitBytes"},
	"GET /api/v1/queue":               {"team", "summary", "offset", "limit"},
	"GET /api/v1/usage/report":        {"from", "to", "type", "team"},
	"GET /api/v1/trends":              {"window"},
	"GET /api/v1/topology":            {"format"},
	"GET /api/v1/audit":               {"team", "task", "actor", "action", "after", "from", "to"},
	"GET /api/v1/preemptions":         {"team", "limit", "before"},
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
