package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// parseBorrowWithinGroup reads --borrow-within-group: "LowerPriority"
// (any lower class), "LowerPriority:W" (classes of weight at most W), or
// "Never" (the default: nil, as a team file without the field).
func parseBorrowWithinGroup(s string) (*model.BorrowWithinGroup, error) {
	bad := func(problem string) error {
		return &model.FieldError{Field: "--borrow-within-group", Problem: fmt.Sprintf("%q %s", s, problem),
			Fix: "use LowerPriority, LowerPriority:MAX_WEIGHT (a class weight 0 to 100) or Never"}
	}
	policy, weight, hasWeight := strings.Cut(s, ":")
	switch model.BorrowWithinGroupPolicy(policy) {
	case model.BorrowWithinGroupNever:
		if hasWeight {
			return nil, bad("gives a weight to Never")
		}
		return nil, nil
	case model.BorrowWithinGroupLowerPriority:
	default:
		return nil, bad("is not a policy")
	}
	b := &model.BorrowWithinGroup{Policy: model.BorrowWithinGroupLowerPriority}
	if hasWeight {
		w, err := strconv.Atoi(weight)
		if err != nil || w < 0 || w > 100 {
			return nil, bad("gives the weight " + strconv.Quote(weight) + ", not a whole number from 0 to 100")
		}
		b.MaxPriorityWeight = &w
	}
	return b, nil
}

// borrowWithinGroupText is team describe's line: "Never" or
// "LowerPriority (classes of weight <= 50)".
func borrowWithinGroupText(b *model.BorrowWithinGroup) string {
	switch {
	case !b.Preempts():
		return "Never"
	case b.MaxPriorityWeight == nil:
		return "LowerPriority (any lower class)"
	}
	return fmt.Sprintf("LowerPriority (lower classes of weight <= %d)", *b.MaxPriorityWeight)
}
