package model

import (
	"strings"
	"testing"
	"time"
)

// TestEstimateStart: a reason that names a time (a payback, a protection,
// the preemption delay of a NoCapacity, quota or topology refusal) gives an
// earliest start, that time; every reason without its time says
// that no estimate can be made and why, in a sentence of their own.
func TestEstimateStart(t *testing.T) {
	codes := []WaitCode{QuotaExhausted, BorrowLimit, NoIdleCompute, NoNodes, NoCapacity, HeldForOther, Draining, QueuedForHold,
		Preempted, NoTopologyFit, NoMatchingNodes, BackingOff, WaitingForPayback, VictimProtected, "SomethingNew"}
	at := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	for _, c := range codes {
		for _, when := range []int64{0, at.Unix()} {
			e := EstimateStart(WaitReason{Code: c, At: when})
			if when > 0 { // At is always a time before which the task cannot start (WaitReason.At)
				if !e.NotBefore.Equal(at) || strings.HasPrefix(e.Basis, "no estimate") || e.Basis == "" {
					t.Errorf("%s at %d: %+v", c, when, e)
				}
				continue
			}
			if !e.NotBefore.IsZero() || !strings.HasPrefix(e.Basis, "no estimate: ") || len(e.Basis) < 40 {
				t.Errorf("%s at %d: %+v, want no estimate and why", c, when, e)
			}
		}
	}
}
