package model

import (
	"slices"
	"strings"
	"testing"
)

// TestFairSharePreemptionValues: the lists Kueue allows pass, an empty one
// stands for the default ([LessThanOrEqualToFinalShare]), and any other
// list (an unknown name, the two in the other order, one twice) is refused
// with its field, the names quoted and the lists to use.
func TestFairSharePreemptionValues(t *testing.T) {
	for _, l := range append([][]FairShareStrategy{nil}, FairShareStrategySets...) {
		if errs := (Policy{FairSharePreemption: l}).validate("policy"); len(errs) > 0 {
			t.Errorf("%v refused: %v", l, errs)
		}
	}
	use := "use [LessThanOrEqualToFinalShare], [LessThanInitialShare] or [LessThanOrEqualToFinalShare, LessThanInitialShare]"
	for _, c := range []struct {
		list []FairShareStrategy
		got  string
	}{
		{[]FairShareStrategy{"LessThanFinalShare"}, `["LessThanFinalShare"]`},
		{[]FairShareStrategy{LessThanInitialShare, LessThanOrEqualToFinalShare}, `["LessThanInitialShare", "LessThanOrEqualToFinalShare"]`},
		{[]FairShareStrategy{LessThanInitialShare, LessThanInitialShare}, `["LessThanInitialShare", "LessThanInitialShare"]`},
		{[]FairShareStrategy{"a\nb"}, `["a\nb"]`},
	} {
		errs := (Policy{FairSharePreemption: c.list}).validate("policy")
		want := "policy.fairSharePreemption: " + c.got + " is not a list of strategies allowed; " + use
		if errs == nil || !strings.Contains(errs.Error(), want) {
			t.Errorf("%q: got %v, want %q", c.list, errs, want)
		}
	}
	if got := (Policy{}).FairShareStrategies(); !slices.Equal(got, []FairShareStrategy{LessThanOrEqualToFinalShare}) {
		t.Errorf("default list %v", got)
	}
	if got := (Policy{}).WithDefaults().FairSharePreemption; got != nil {
		t.Errorf("WithDefaults fills the list (%v): exports and the API would show a setting nobody made", got)
	}
}
