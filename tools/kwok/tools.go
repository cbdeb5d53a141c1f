//go:build tools

// Package tools pins the kwok binary the integration tests run.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
