package model

import (
	"strings"
	"testing"
	"time"
)

// TestEstimateStart: only a reason that names a time gives an earliest
// start, that time; every other reason, and those without their time, say
// that no estimate can be made and why, in a sentence of their own.
func TestEstimateStart(t *testing.T) {
	codes := []WaitCode{QuotaExhausted, BorrowLimit, NoIdleCompute, NoNodes, NoCapacity, HeldForOther, Draining, QueuedForHold,
		Preempted, NoTopologyFit, NoMatchingNodes, BackingOff, WaitingForPayback, VictimProtected, "SomethingNew"}
	timed := map[WaitCode]bool{WaitingForPayback: true, VictimProtected: true, NoCapacity: true}
	at := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	for _, c := range codes {
		for _, when := range []int64{0, at.Unix()} {
			e := EstimateStart(WaitReason{Code: c, At: when})
			if timed[c] && when > 0 {
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
