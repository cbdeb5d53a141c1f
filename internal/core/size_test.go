package core

import (
	"testing"
	"unsafe"
)

// TestTaskFitsItsSizeClass: Go's allocator rounds each task up to a size
// class (…, 512, 576, 640 bytes). A field that pushes the struct past 576
// costs 64 bytes for every pending task, 6% of the giant-scale budget of
// 1 KiB per pending task (docs/BENCHMARKS.md, "Giant scale"): group small
// fields, narrow types or move rarely set data off the task instead. (It
// was in the 640 class until its wait reason became a pointer to a shared
// record, waitreason.go: 632 bytes, now 520.)
func TestTaskFitsItsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(task{}); n > 576 {
		t.Fatalf("task is %d bytes, past the 576-byte size class", n)
	}
}
