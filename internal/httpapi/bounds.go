package httpapi

import (
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// listBudget bounds the bytes of task records in one list response: a page
// stops early (with nextAfter) rather than grow past it. Submit limits each
// record's command (with its args) and env to 32 KiB apiece, so a page of
// 1000 could otherwise reach about 70 MB.
const listBudget = 4 << 20

// withinBudget returns how many of recs fit in listBudget (at least one).
func withinBudget(recs []model.TaskRecord) int {
	total := 0
	for i, r := range recs {
		total += recordSize(r)
		if total > listBudget && i > 0 {
			return i
		}
	}
	return len(recs)
}

// recordSize estimates a record's encoded size from its variable parts.
func recordSize(r model.TaskRecord) int {
	n := 512 + len(r.Name) + len(r.Message) + len(r.Spec.Image)
	for _, a := range r.Spec.Command {
		n += len(a) + 8
	}
	for _, a := range r.Spec.Args {
		n += len(a) + 8
	}
	for k, v := range r.Spec.Env {
		n += len(k) + len(v) + 8
	}
	return n
}

// taskStates are the states a task list may filter on.
var taskStates = []string{string(model.StatePending), string(model.StateRunning), string(model.StateSuspended), string(model.StateSucceeded),
	string(model.StateFailed), string(model.StateCancelled), string(model.StateInterrupted)}

// checkStates refuses an unknown state filter, which would silently match
// nothing.
func checkStates(states []string) error {
	for _, st := range states {
		known := false
		for _, k := range taskStates {
			known = known || st == k
		}
		if !known {
			return &model.FieldError{Field: "state", Problem: "unknown state " + strconvQuote(st),
				Fix: "use one of " + strings.Join(taskStates, ", ")}
		}
	}
	return nil
}

func strconvQuote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
