package model

import (
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/resource"
)

// TestQuotaNotes: quotas the cluster cannot back are accepted with a note
// each (they were accepted silently): an instance type with no nodes, a
// quota above the cluster's nodes of its type, vCPU without GPUs, and a
// borrowing team whose borrow limit is 0. A quota the cluster backs gets
// none.
func TestQuotaNotes(t *testing.T) {
	cat := NewCatalog(nil)
	p5 := cat["ml.p5.48xlarge"]
	capacity := map[string]resource.Vector{"ml.p5.48xlarge": p5.Capacity().Mul(2)}
	i64 := func(n int64) *int64 { return &n }
	f64 := func(n float64) *float64 { return &n }
	zero := 0
	cases := []struct {
		team Team
		want []string // one note per entry, each containing these words
	}{
		{Team{Name: "fits", Quotas: []Quota{{InstanceType: "ml.p5.48xlarge", Count: i64(2)}}}, nil},
		{Team{Name: "absent", Quotas: []Quota{{InstanceType: "ml.g5.12xlarge", Count: i64(1)}}}, []string{"no nodes of this type"}},
		{Team{Name: "big", Quotas: []Quota{{InstanceType: "ml.p5.48xlarge", GPUs: i64(24)}}}, []string{"24 GPUs is more than the cluster's 16 GPUs"}},
		{Team{Name: "cpu", Quotas: []Quota{{InstanceType: "ml.p5.48xlarge", VCPU: f64(96)}}}, []string{"no GPUs, so its GPU quota is 0"}},
		{Team{Name: "noborrow", BorrowLimitPercent: &zero, Quotas: []Quota{{InstanceType: "ml.p5.48xlarge", Count: i64(1)}}}, []string{"borrows no idle compute"}},
		{Team{Name: "lendonly", Lending: LendOnly, BorrowLimitPercent: &zero, Quotas: []Quota{{InstanceType: "ml.p5.48xlarge", Count: i64(1)}}}, nil},
	}
	for _, c := range cases {
		got := QuotaNotes(c.team, cat, capacity)
		if len(got) != len(c.want) {
			t.Errorf("team %s: notes %q, want %d", c.team.Name, got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) || !strings.Contains(got[i], c.team.Name) {
				t.Errorf("team %s: note %q lacks %q", c.team.Name, got[i], w)
			}
		}
	}
}
