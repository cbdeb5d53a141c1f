//go:build !linux

package core

import "time"

// threadCPU is 0 where no per-thread CPU clock is read: the benchmarks'
// cpu-ms/op metric is then 0.
func threadCPU() time.Duration { return 0 }
