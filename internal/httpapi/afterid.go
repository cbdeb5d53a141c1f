package httpapi

import (
	"strconv"

	"github.com/taskgov/taskgov/internal/model"
)

// afterID parses an ?after= cursor: empty is 0 (from the start); anything
// but a whole number of 0 or more is refused naming the parameter, never
// read as 0 (which would silently return the whole history).
func afterID(q, what string) (int64, error) {
	if q == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(q, 10, 64)
	if err != nil || n < 0 {
		return 0, &model.FieldError{Field: "after", Problem: "must be an " + what + " id, 0 or more",
			Fix: "pass the id of the last " + what + " you have (?after=0 for all)"}
	}
	return n, nil
}
