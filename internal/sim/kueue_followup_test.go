package sim

import (
	"reflect"
	"testing"
)

// TestKueueFollowUp checks the follow-up on a hand-made history: b evicts a
// at 1 s (3 s of a's run left), and c evicts b at 1.5 s, half a second into
// b's 2 s run; a is back at 2 s, 1 s later, after b's cut-short run. d
// evicts e at 3 s, and e is back at 3.2 s, before d ends at 4 s: a bounce.
func TestKueueFollowUp(t *testing.T) {
	dur := map[string]float64{"a": 4, "b": 2, "c": 1, "d": 1, "e": 1}
	evs := []kueueEviction{
		{at: 1, victim: "a", forTask: "b", ran: 1},
		{at: 1.5, victim: "b", forTask: "c", ran: 0.5},
		{at: 3, victim: "e", forTask: "d", ran: 0.2},
	}
	admitted := map[string][]float64{"a": {0, 2}, "b": {1, 2.5}, "c": {1.5}, "d": {3}, "e": {2.8, 3.2}}
	pre, back, spared := kueueFollowUp(evs, admitted, dur)
	if want := map[string]int{"preemptor itself evicted before its run ended": 1, "preemptor ran to its end": 2}; !reflect.DeepEqual(pre, want) {
		t.Errorf("preemptor: %v, want %v", pre, want)
	}
	if want := map[string]int{"victim admitted again 1.0 s later": 2, "victim admitted again 0.2 s later, before its preemptor ended": 1}; !reflect.DeepEqual(back, want) {
		t.Errorf("readmitted: %v, want %v", back, want)
	}
	if want := map[string]int{"its victims would have ended 3.0 s later": 1, "its victims would have ended 1.5 s later": 1,
		"its victims would have ended 0.8 s later": 1}; !reflect.DeepEqual(spared, want) {
		t.Errorf("spared wait: %v, want %v", spared, want)
	}
}
