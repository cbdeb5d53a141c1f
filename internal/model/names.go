package model

import "fmt"

// Task names. A task is addressed by its name (GET /api/v1/tasks/NAME), so
// at most one live task holds a name at a time. Once a task has finished
// (succeeded, failed or cancelled), its team may submit a new task under the
// same name; the earlier task's record, events and runs are kept, and the
// name then addresses the newest task. A name stays with the team that first
// used it: another team may not take it while its history is kept.
//
// The core enforces the first rule for its live tasks; the store enforces
// both on every insert; the engine checks both before a submission reaches
// either, with CheckNameReuse.

// PriorUse is the newest stored task with a name, if any.
type PriorUse struct {
	Team string
	Live bool // not yet finished
}

// CheckNameReuse says whether team may submit a task called name, given the
// newest earlier task with that name (nil if none). It returns an error
// wrapping ErrConflict, naming the fix.
func CheckNameReuse(name, team string, prior *PriorUse) error {
	switch {
	case prior == nil:
		return nil
	case prior.Team != team:
		return fmt.Errorf("task name %q is taken by team %q (names are cluster-wide and stay with the team that used them); choose another name: %w",
			name, prior.Team, ErrConflict)
	case prior.Live:
		return fmt.Errorf("task %q already exists and has not finished; choose another name, or cancel it and wait until it has stopped: %w",
			name, ErrConflict)
	}
	return nil
}
