package resource

import (
	"math"
	"testing"
)

func TestAddSaturatesAndKeepsUnlimited(t *testing.T) {
	a := Vector{GPUs: math.MaxInt64 - 1, MilliCPU: 5, MemMiB: Unlimited}
	got := a.Add(Vector{GPUs: 10, MilliCPU: 5, MemMiB: 7})
	want := Vector{GPUs: Unlimited, MilliCPU: 10, MemMiB: Unlimited}
	if got != want {
		t.Fatalf("Add = %v, want %v", got, want)
	}
	if s := Infinite.Sub(New(8, 96, 1024)); s != Infinite {
		t.Fatalf("Unlimited minus finite = %v, want Infinite", s)
	}
}

func TestSubClampedAndLessEq(t *testing.T) {
	a := New(4, 48, 512)
	b := New(8, 16, 512)
	if got := a.SubClamped(b); got != (Vector{0, 32000, 0}) {
		t.Fatalf("SubClamped = %v", got)
	}
	if a.LessEq(b) || !Zero.LessEq(a) {
		t.Fatalf("LessEq wrong")
	}
	if k, ok := b.Exceeded(a); !ok || k != GPU {
		t.Fatalf("Exceeded = %v %v, want GPU", k, ok)
	}
}

func TestMulPercentShare(t *testing.T) {
	node := New(8, 192, 2048)
	if got := node.Mul(4); got != New(32, 768, 8192) {
		t.Fatalf("Mul = %v", got)
	}
	if got := node.Mul(math.MaxInt64 / 2); got.GPUs != Unlimited {
		t.Fatalf("Mul did not saturate: %v", got)
	}
	if got := New(16, 384, 4096).Percent(50); got != node {
		t.Fatalf("Percent = %v", got)
	}
	// SageMaker's largest borrow limit, 10000%: no overflow on large
	// figures; past int64, Unlimited.
	big := Vector{GPUs: math.MaxInt64 / 10, MilliCPU: math.MaxInt64 / 20000, MemMiB: math.MaxInt64 - 1}
	if got := big.Percent(10000); got.GPUs != Unlimited || got.MilliCPU != math.MaxInt64/20000*100 || got.MemMiB != Unlimited {
		t.Fatalf("Percent(10000) of %v = %v", big, got)
	}
	if s := New(4, 192, 0).ShareOf(New(8, 192, 0)); s != 1 {
		t.Fatalf("ShareOf = %v, want 1 (dominant vCPU)", s)
	}
}

func TestFormat(t *testing.T) {
	if s := New(8, 1.5, 0.5).String(); s != "{8 GPUs, 1.5 vCPU, 512 MiB}" {
		t.Fatalf("String = %q", s)
	}
}
