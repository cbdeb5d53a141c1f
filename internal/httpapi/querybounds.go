package httpapi

import (
	"fmt"

	"github.com/taskgov/taskgov/internal/model"
)

// Bounds on what a list's query may ask for, beyond the 64 KiB a request's
// header may hold (Harden): each refused with a 400 naming the field.
const (
	// maxQueryTeams bounds a repeated ?team= filter; leave team out for
	// every team the token may read.
	maxQueryTeams = 1000
	// maxSearchLen bounds the task page's ?q=, a search in task names,
	// which are at most 63 characters: a longer one can match nothing.
	maxSearchLen = 63
)

// checkQueryTeams refuses a ?team= list longer than maxQueryTeams.
func checkQueryTeams(teams []string) error {
	if len(teams) > maxQueryTeams {
		return &model.FieldError{Field: "team", Problem: fmt.Sprintf("is given %d times, more than %d", len(teams), maxQueryTeams),
			Fix: "name fewer teams, or leave team out for every team you may read"}
	}
	return nil
}
