package sim

import (
	"math"
	"testing"
)

// Hand-solved cases for the bounds.
func TestBoundsByHand(t *testing.T) {
	// Two jobs on 8 GPUs: A at 0, 8 GPUs × 10 s = 80 GPU·s; B at 5, 8 × 2 s = 16.
	// Makespan: all 96 GPU·s from t=0 need 12 s; B alone needs 5+2=7; A 0+10.
	ws := []work{{0, 80, 10}, {5, 16, 2}}
	if got := makespanLower(ws, 8); got != 12 {
		t.Fatalf("makespan bound %v, want 12", got)
	}
	// SRPT at speed 8: A runs 0-5 (rem 5 s of the machine), B arrives with 2 s
	// and is shorter: B 5-7 (JCT 2), A 7-12 (JCT 12). Mean 7.
	if got := srptMeanJCT(ws, 8); got != 7 {
		t.Fatalf("SRPT mean JCT %v, want 7", got)
	}
	// Late small arrival dominates: A 8 GPU·s at 0 (1 s), B 8 GPU·s at 100.
	ws = []work{{0, 8, 1}, {100, 8, 1}}
	if got := makespanLower(ws, 8); got != 101 {
		t.Fatalf("makespan bound %v, want 101", got)
	}
	if got := srptMeanJCT(ws, 8); math.Abs(got-1) > 1e-12 {
		t.Fatalf("SRPT mean JCT %v, want 1", got)
	}
	// A job's own duration bounds the makespan even with spare GPUs:
	// 1 GPU × 50 s on 100 GPUs: fluid says 0.5 s, the job needs 50.
	if got := makespanLower([]work{{0, 50, 50}}, 100); got != 50 {
		t.Fatalf("makespan bound %v, want 50", got)
	}
}
