//go:build tools

// Package tools pins the Kubernetes binaries the integration tests run:
// kube-apiserver, and kube-controller-manager for the real Job and garbage
// collector controllers.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
