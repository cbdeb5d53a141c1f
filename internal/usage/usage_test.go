package usage

import (
	"math"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

var day0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func h(hours float64) time.Time { return day0.Add(time.Duration(hours * float64(time.Hour))) }

// A known borrowing scenario: team a runs 2 p5 nodes (16 GPUs) from 20:00 to
// 04:00 the next day within quota; team b borrows 1 node from 22:00 to 23:30,
// is preempted, and runs again in quota from 23:30 to 01:00. Prices: p5 at
// $98.32 an instance-hour.
func TestSummaryAddsUpExactly(t *testing.T) {
	cat := model.NewCatalog([]model.InstanceType{{Name: "ml.p5.48xlarge", GPUs: 8, VCPU: 192, MemoryGiB: 2048, PricePerHour: 98.32}})
	runs := []model.Run{
		{Task: "a1", Team: "a", InstanceType: "ml.p5.48xlarge", GPUs: 16, VCPU: 384, StartedAt: h(20), EndedAt: h(28), Outcome: "succeeded"},
		{Task: "b1", Team: "b", InstanceType: "ml.p5.48xlarge", GPUs: 8, VCPU: 192, BorrowedGPUs: 8, StartedAt: h(22), EndedAt: h(23.5), Outcome: "preempted: Reclaim"},
		{Task: "b1", Team: "b", InstanceType: "ml.p5.48xlarge", GPUs: 8, VCPU: 192, StartedAt: h(23.5), EndedAt: h(25), Outcome: "succeeded"},
	}
	r, err := Build(Summary, "demo", cat, runs, nil, day0, h(48), h(48), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []SummaryRow{
		{Date: "2026-11-01", Team: "a", InstanceType: "ml.p5.48xlarge", GPUHours: 16 * 4, VCPUHours: 384 * 4, Cost: 2 * 4 * 98.32},
		{Date: "2026-11-01", Team: "b", InstanceType: "ml.p5.48xlarge", GPUHours: 8 * 2, BorrowedGPUHours: 8 * 1.5, VCPUHours: 192 * 2, Cost: 2 * 98.32},
		{Date: "2026-11-02", Team: "a", InstanceType: "ml.p5.48xlarge", GPUHours: 16 * 4, VCPUHours: 384 * 4, Cost: 2 * 4 * 98.32},
		{Date: "2026-11-02", Team: "b", InstanceType: "ml.p5.48xlarge", GPUHours: 8 * 1, VCPUHours: 192, Cost: 98.32},
	}
	if len(r.Summary) != len(want) {
		t.Fatalf("rows %+v", r.Summary)
	}
	for i, w := range want {
		g := r.Summary[i]
		if g.Date != w.Date || g.Team != w.Team || g.GPUHours != w.GPUHours || g.BorrowedGPUHours != w.BorrowedGPUHours ||
			g.VCPUHours != w.VCPUHours || math.Abs(g.Cost-w.Cost) > 1e-9 {
			t.Errorf("row %d: got %+v, want %+v", i, g, w)
		}
	}
	// The detailed view clips windows to the range and keeps every run.
	d, _ := Build(Detailed, "demo", cat, runs, nil, h(23), h(24), h(48), map[string]bool{"b": true})
	if len(d.Detailed) != 2 || d.Detailed[0].GPUHours != 4 || d.Detailed[1].GPUHours != 4 || d.Detailed[0].Status != "preempted: Reclaim" {
		t.Fatalf("detailed %+v", d.Detailed)
	}
	// A crashed session leaves a gap from its last recorded change to the next start.
	sessions := []model.Session{{StartedAt: h(0)}, {StartedAt: h(30), StoppedAt: h(40)}, {StartedAt: h(41)}}
	r, _ = Build(Summary, "demo", cat, runs, sessions, day0, h(48), h(48), nil)
	if len(r.Header.MissingPeriods) != 2 || !r.Header.MissingPeriods[0].From.Equal(h(28)) || !r.Header.MissingPeriods[0].To.Equal(h(30)) ||
		!r.Header.MissingPeriods[1].From.Equal(h(40)) {
		t.Fatalf("missing periods %+v", r.Header.MissingPeriods)
	}
	if _, err := Build("weekly", "demo", cat, runs, nil, day0, h(48), h(48), nil); err == nil {
		t.Fatal("an unknown report type was accepted")
	}
}
