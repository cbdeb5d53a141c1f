package metrics

import (
	"runtime"
	"testing"
)

// TestServesRuntimeSeries: /metrics carries the Go runtime's and the
// process's standard series, among them what the load test reads to count
// collections and to size the live heap.
func TestServesRuntimeSeries(t *testing.T) {
	m := New(func() Snapshot { return Snapshot{} })
	runtime.GC()
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, x := range f.GetMetric() {
			switch {
			case x.GetGauge() != nil:
				got[f.GetName()] = x.GetGauge().GetValue()
			case x.GetSummary() != nil:
				got[f.GetName()] = float64(x.GetSummary().GetSampleCount())
			}
		}
	}
	for _, name := range []string{"go_gc_duration_seconds", "go_gc_heap_live_bytes", "go_gc_gogc_percent", "go_gc_gomemlimit_bytes",
		"go_goroutines", "process_resident_memory_bytes"} {
		if got[name] <= 0 {
			t.Errorf("%s: %v, want a positive value (have %d families)", name, got[name], len(families))
		}
	}
}
