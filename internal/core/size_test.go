package core

import (
	"testing"
	"unsafe"
)

// TestTaskFitsItsSizeClass: Go's allocator rounds each task up to a size
// class (…, 576, 640, 704 bytes). A field that pushes the struct past 640
// costs 64 bytes for every pending task, 6% of the giant-scale budget of
// 1 KiB per pending task (docs/BENCHMARKS.md, "Giant scale"): group small
// fields, narrow types or move rarely set data off the task instead.
func TestTaskFitsItsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(task{}); n > 640 {
		t.Fatalf("task is %d bytes, past the 640-byte size class", n)
	}
}
