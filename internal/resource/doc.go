// Package resource owns the quantity arithmetic of taskgov: a Vector of GPUs,
// milli-vCPU and MiB of memory. All quota, usage and capacity math goes through
// its methods, which saturate instead of overflowing and name "unlimited"
// explicitly.
//
// It imports nothing from taskgov and must stay that way.
package resource
