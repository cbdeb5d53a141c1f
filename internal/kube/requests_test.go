package kube

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// APIVerb names requests as RBAC rules do.
func TestAPIVerb(t *testing.T) {
	for _, c := range []struct{ method, target, verb, resource string }{
		{"GET", "/api/v1/nodes?watch=true&resourceVersion=5", "watch", "nodes"},
		{"GET", "/api/v1/pods?labelSelector=x", "list", "pods"},
		{"POST", "/api/v1/namespaces", "create", "namespaces"},
		{"POST", "/api/v1/namespaces/hyperpod-ns-a/pods", "create", "pods"},
		{"POST", "/api/v1/namespaces/hyperpod-ns-a/pods/t-0-run0/binding", "create", "pods/binding"},
		{"GET", "/api/v1/namespaces/hyperpod-ns-a/pods/t-0-run0/log", "get", "pods/log"},
		{"DELETE", "/api/v1/namespaces/hyperpod-ns-a/pods/t-0-run0", "delete", "pods"},
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/taskgov-system/leases/taskgov", "update", "leases"},
		{"GET", "/version", "get", "other"},
	} {
		verb, resource := APIVerb(httptest.NewRequest(c.method, c.target, http.NoBody))
		if verb != c.verb || resource != c.resource {
			t.Errorf("%s %s: %s %s, want %s %s", c.method, c.target, verb, resource, c.verb, c.resource)
		}
	}
}
