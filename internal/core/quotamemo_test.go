package core

import (
	"testing"

	"github.com/taskgov/taskgov/internal/resource"
)

// TestDifferentialCatchesBrokenQuotaMemo injects a bug into the quota memo
// (quotamemo.go): usage changes no longer move its epoch, so a walk reuses
// quota answers and shares from before an admission or a preemption. The
// differential test, whose reference computes every answer, must see it.
func TestDifferentialCatchesBrokenQuotaMemo(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		if err := differentialRun(seed, 2000, "quotamemo"); err != nil {
			t.Logf("caught, as it must be: %v", err)
			return
		}
	}
	t.Fatal("with a quota memo that outlives usage changes, the differential test found no difference")
}

// TestQuotaMemoAnswersAsComputed asks the memo and the function the same
// questions around an admission: the same answers, and the memo hits
// between changes.
func TestQuotaMemoAnswersAsComputed(t *testing.T) {
	s, err := New(multiTypeCluster(16, 2, 1), 1)
	if err != nil {
		t.Fatal(err)
	}
	tm := s.teams[0]
	reqs := []resource.Vector{{GPUs: 8}, {GPUs: 16}, {GPUs: 8 * 1000}, {GPUs: 8}}
	check := func() {
		t.Helper()
		for _, r := range reqs {
			got, want := s.checkQuota(tm, 0, r), s.checkQuotaNow(tm, 0, r)
			if got.ok != want.ok || got.inQuota != want.inQuota || (got.wait == nil) != (want.wait == nil) ||
				(got.wait != nil && *got.wait != *want.wait) {
				t.Fatalf("request %v: memo %+v, computed %+v", r, got, want)
			}
			if got, want := s.headShare(tm, 0, r), s.share(tm, 0, r); got != want {
				t.Fatalf("request %v: memo share %v, computed %v", r, got, want)
			}
		}
	}
	check()
	e := s.qm.current()
	if s.quotaSet(tm, 0).find(e, reqs[0]) == nil {
		t.Fatal("the memo kept no answer")
	}
	s.addUsage(tm, 0, resource.Vector{GPUs: 8})
	if s.qm.current() == e {
		t.Fatal("a usage change left the memo's epoch")
	}
	check()
}
