package kube

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// RequestCounter counts taskgov's requests to the Kubernetes API server by
// verb, resource and status code, as the Prometheus counter
// taskgov_kubernetes_requests_total. Wrap installs it on a client's
// transport (rest.Config.Wrap).
type RequestCounter struct {
	Vec *prometheus.CounterVec
}

// NewRequestCounter makes an unregistered counter.
func NewRequestCounter() *RequestCounter {
	return &RequestCounter{Vec: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "taskgov_kubernetes_requests_total",
		Help: "Requests taskgov made to the Kubernetes API server, by verb (get, list, watch, create, update, patch, delete), resource (pods, pods/binding, ...) and HTTP status code.",
	}, []string{"verb", "resource", "code"})}
}

// Wrap returns rt counting each request.
func (c *RequestCounter) Wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(r)
		code := "error"
		if err == nil {
			code = strconv.Itoa(resp.StatusCode)
		}
		verb, resource := APIVerb(r)
		c.Vec.WithLabelValues(verb, resource, code).Inc()
		return resp, err
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// APIVerb names a Kubernetes API request as RBAC does: its verb and its
// resource (with subresource), from the method and the path
// /api/v1/[namespaces/NS/]RESOURCE[/NAME[/SUB]] or
// /apis/GROUP/VERSION/[namespaces/NS/]RESOURCE[/NAME[/SUB]].
func APIVerb(r *http.Request) (verb, resource string) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return strings.ToLower(r.Method), "other"
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	if len(parts) == 0 {
		return strings.ToLower(r.Method), "namespaces"
	}
	resource = parts[0]
	named := len(parts) >= 2
	if len(parts) >= 3 {
		resource += "/" + parts[2]
	}
	switch r.Method {
	case http.MethodGet:
		switch {
		case r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1":
			verb = "watch"
		case named:
			verb = "get"
		default:
			verb = "list"
		}
	case http.MethodPost:
		verb = "create"
	case http.MethodPut:
		verb = "update"
	case http.MethodPatch:
		verb = "patch"
	case http.MethodDelete:
		verb = "delete"
	default:
		verb = strings.ToLower(r.Method)
	}
	return verb, resource
}
