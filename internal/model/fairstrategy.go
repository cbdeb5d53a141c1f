package model

import (
	"slices"
	"strconv"
	"strings"
)

// checkFairShareStrategies accepts an empty list (the default) or one of
// FairShareStrategySets, and otherwise names the lists allowed.
func checkFairShareStrategies(f string, list []FairShareStrategy) Errors {
	if len(list) == 0 {
		return nil
	}
	for _, ok := range FairShareStrategySets {
		if slices.Equal(list, ok) {
			return nil
		}
	}
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = strconv.Quote(string(s))
	}
	return Errors{fieldErr(f, "use "+FairShareStrategySetsText()+" (the strategies a rebalance tries, in order)",
		"[%s] is not a list of strategies allowed", strings.Join(quoted, ", "))}
}

// FairShareStrategySetsText names the allowed lists, for errors and help.
func FairShareStrategySetsText() string {
	var sets []string
	for _, s := range FairShareStrategySets {
		sets = append(sets, strategyList(s))
	}
	return strings.Join(sets[:len(sets)-1], ", ") + " or " + sets[len(sets)-1]
}

func strategyList(list []FairShareStrategy) string {
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = string(s)
	}
	return "[" + strings.Join(names, ", ") + "]"
}
