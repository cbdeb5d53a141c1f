package model

import (
	"errors"
	"testing"
)

func TestNameIndexKeepsNewestTaskOfEachName(t *testing.T) {
	var n NameIndex
	loads := 0
	load := func() ([]NameRow, error) {
		loads++
		// Out of order: the newest of "a" (seq 3) comes before an older one.
		return []NameRow{{"a", "x", 3, StateRunning}, {"a", "x", 1, StateSucceeded}, {"b", "y", 2, StateFailed}}, nil
	}
	p, err := n.Lookup("a", load)
	if err != nil || p == nil || p.Team != "x" || !p.Live {
		t.Fatalf("a: %+v %v, want live task of team x", p, err)
	}
	if p, _ := n.Lookup("b", load); p == nil || p.Live {
		t.Fatalf("b: %+v, want a finished task", p)
	}
	if p, _ := n.Lookup("c", load); p != nil {
		t.Fatalf("c: %+v, want none", p)
	}
	if loads != 1 {
		t.Fatalf("loaded %d times, want once", loads)
	}
	// A commit updates the index; an update of an older task does not
	// override a newer one.
	n.Committed([]NameRow{{"a", "x", 3, StateSucceeded}, {"b", "y", 1, StateRunning}, {"c", "z", 4, StatePending}})
	if p, _ := n.Lookup("a", load); p.Live {
		t.Fatal("a finished, yet the index says live")
	}
	if p, _ := n.Lookup("b", load); p.Live {
		t.Fatal("an older task of b overrode the newest")
	}
	if p, _ := n.Lookup("c", load); p == nil || p.Team != "z" {
		t.Fatal("c was committed but is not in the index")
	}
	n.Invalidate()
	if _, err := n.Lookup("a", func() ([]NameRow, error) { return nil, errors.New("db down") }); err == nil {
		t.Fatal("a failed load must be reported")
	}
	if p, _ := n.Lookup("a", load); p == nil || loads != 2 {
		t.Fatal("after a failed load the next lookup must load again")
	}
}
