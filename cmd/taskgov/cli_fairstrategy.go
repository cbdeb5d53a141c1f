package main

import (
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// parseFairShareStrategies reads --fair-share-preemption: a comma-separated
// list of strategies, or "default" (or nothing) for the default list. The
// server validates the list (unknown names and orders are refused there,
// with the lists allowed).
func parseFairShareStrategies(v string) []model.FairShareStrategy {
	v = strings.TrimSpace(v)
	if v == "" || v == "default" {
		return nil
	}
	var out []model.FairShareStrategy
	for _, s := range strings.Split(v, ",") {
		out = append(out, model.FairShareStrategy(strings.TrimSpace(s)))
	}
	return out
}

// fairShareStrategiesText shows the strategies p's rebalance tries, the
// default's marked.
func fairShareStrategiesText(p model.Policy) string {
	var names []string
	for _, s := range p.FairShareStrategies() {
		names = append(names, string(s))
	}
	text := strings.Join(names, ", ")
	if len(p.FairSharePreemption) == 0 {
		text += " (default)"
	}
	return text
}
